// Request argument validation with WordPress's rules and messages: every bad argument is collected and the
// request fails once with 400 rest_invalid_param ("Invalid parameter(s): a, b") and per-argument details.
import { type SiteTime, parseDay, parseFilterDate } from "../dates.ts"
import { wcError } from "./errors.ts"

type Source = (name: string) => unknown

const humanList = (items: ReadonlyArray<string>): string =>
  items.length <= 2 ? items.join(" and ") : `${items.slice(0, -1).join(", ")}, and ${items[items.length - 1]}`

const INTEGER = /^\s*[+-]?\d+(?:\.0*)?\s*$/

export class ParamReader {
  private readonly invalid = new Map<string, { code: string; message: string }>()

  constructor(private readonly source: Source) {}

  /** Query parameters (`name` and PHP-style `name[]`) with a JSON body taking precedence, as WordPress merges them. */
  static of(query: URLSearchParams, body: Record<string, unknown> = {}): ParamReader {
    return new ParamReader((name) => {
      if (name in body) return body[name]
      const values = [...query.getAll(name), ...query.getAll(`${name}[]`)]
      return values.length === 0 ? undefined : query.has(`${name}[]`) ? values : values[0]
    })
  }

  has(name: string): boolean {
    return this.source(name) !== undefined
  }

  string(name: string): string | undefined {
    const v = this.source(name)
    return v === undefined ? undefined : String(v)
  }

  int(name: string, opts: { def?: number; min?: number; max?: number } = {}): number | undefined {
    const v = this.source(name)
    if (v === undefined || v === "") return opts.def
    if (!(typeof v === "number" ? Number.isInteger(v) : typeof v === "string" && INTEGER.test(v))) {
      return this.fail(name, "rest_invalid_type", `${name} is not of type integer.`, opts.def)
    }
    const n = Math.trunc(Number(v))
    const { min, max } = opts
    if ((min !== undefined && n < min) || (max !== undefined && n > max)) {
      const message =
        min !== undefined && max !== undefined
          ? `${name} must be between ${min} (inclusive) and ${max} (inclusive)`
          : min !== undefined
            ? `${name} must be greater than or equal to ${min}`
            : `${name} must be less than or equal to ${max}`
      return this.fail(name, "rest_out_of_bounds", message, opts.def)
    }
    return n
  }

  bool(name: string, def: boolean): boolean {
    const v = this.source(name)
    if (v === undefined) return def
    if (v === true || v === false) return v
    const s = String(v).toLowerCase()
    if (s === "true" || s === "1") return true
    if (s === "false" || s === "0" || s === "") return false
    return this.fail(name, "rest_invalid_type", `${name} is not of type boolean.`, def)
  }

  oneOf<const V extends string>(name: string, values: ReadonlyArray<V>, def: V): V
  oneOf<const V extends string>(name: string, values: ReadonlyArray<V>): V | undefined
  oneOf<const V extends string>(name: string, values: ReadonlyArray<V>, def?: V): V | undefined {
    const v = this.source(name)
    if (v === undefined) return def
    if ((values as ReadonlyArray<unknown>).includes(v)) return v as V
    return this.fail(name, "rest_not_in_enum", `${name} is not one of ${humanList(values)}.`, def)
  }

  /** An array argument: repeated `name[]`, a JSON array, or a comma/space separated list. */
  list(name: string): string[] | undefined {
    const v = this.source(name)
    if (v === undefined) return undefined
    const items = Array.isArray(v) ? v.map(String) : String(v).split(/[\s,]+/)
    return items.filter((s) => s !== "")
  }

  manyOf<const V extends string>(name: string, values: ReadonlyArray<V>): V[] | undefined {
    const items = this.list(name)
    if (items === undefined) return undefined
    const bad = items.findIndex((s) => !(values as ReadonlyArray<string>).includes(s))
    if (bad < 0) return items as V[]
    return this.fail(name, "rest_not_in_enum", `${name}[${bad}] is not one of ${humanList(values)}.`, undefined)
  }

  ids(name: string): number[] | undefined {
    const items = this.list(name)
    if (items === undefined) return undefined
    const bad = items.findIndex((s) => !INTEGER.test(s))
    if (bad < 0) return items.map((s) => Math.trunc(Number(s)))
    return this.fail(name, "rest_invalid_type", `${name}[${bad}] is not of type integer.`, undefined)
  }

  /** An RFC 3339 date-time filter, as naive seconds for the database comparison (see parseFilterDate). */
  dateTime(name: string, site: SiteTime): number | undefined {
    const v = this.source(name)
    if (v === undefined) return undefined
    const parsed = parseFilterDate(String(v), site)
    return parsed ?? this.fail(name, "rest_invalid_date", "Invalid date.", undefined)
  }

  /** A `YYYY-MM-DD` day, as wall seconds at midnight. */
  day(name: string): number | undefined {
    const v = this.source(name)
    if (v === undefined || v === "") return undefined
    const parsed = parseDay(String(v))
    return parsed ?? this.fail(name, "rest_invalid_date", "Invalid date.", undefined)
  }

  /** Throws the collected 400 if any argument was invalid. */
  check(): void {
    if (this.invalid.size === 0) return
    const names = [...this.invalid.keys()]
    const params = Object.fromEntries([...this.invalid].map(([k, v]) => [k, v.message]))
    const details = Object.fromEntries([...this.invalid].map(([k, v]) => [k, { code: v.code, message: v.message, data: null }]))
    throw wcError(400, "rest_invalid_param", `Invalid parameter(s): ${names.join(", ")}`, { params, details })
  }

  private fail<D>(name: string, code: string, message: string, def: D): D {
    if (!this.invalid.has(name)) this.invalid.set(name, { code, message })
    return def
  }
}
