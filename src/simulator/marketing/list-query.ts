// The list parameters the service's list endpoints share: start/limit windows, orderBy/orderByDir,
// search strings with `command:value` terms, and `where[n][col|expr|val]` filters.
import { apiError } from "./errors.ts"
import { asList, asRecord, type Params } from "./php-params.ts"

/** The service's default_pagelimit. */
const DEFAULT_LIMIT = 30

export interface ListWindow {
  start: number
  /** 0 means no limit, as the repository only sets a maximum for a non-empty limit. */
  limit: number
}

const integerParam = (value: unknown, fallback: number): number => {
  const n = Number.parseInt(String(value ?? ""), 10)
  return Number.isNaN(n) ? fallback : n
}

export const readWindow = (query: Params): ListWindow => ({
  start: Math.max(0, integerParam(query["start"], 0)),
  limit: Math.max(0, integerParam(query["limit"], DEFAULT_LIMIT)),
})

export const pageOf = <T>(rows: T[], { start, limit }: ListWindow): T[] =>
  rows.slice(start, limit === 0 ? undefined : start + limit)

export interface Order {
  column: string
  direction: 1 | -1
}

/** `resolve` maps a requested column name to the row key to sort on, or undefined when unknown. */
export const readOrder = (
  query: Params,
  resolve: (name: string) => string | undefined,
  defaultColumn: string,
): Order => {
  const requested = typeof query["orderBy"] === "string" && query["orderBy"] !== "" ? query["orderBy"] : undefined
  const column = requested === undefined ? defaultColumn : resolve(requested)
  if (column === undefined) throw apiError(400, `orderBy: unknown column '${requested}'`)
  const dir = typeof query["orderByDir"] === "string" ? query["orderByDir"].toLowerCase() : "asc"
  if (dir !== "asc" && dir !== "desc") throw apiError(400, `orderByDir: expected asc or desc, got '${dir}'`)
  return { column, direction: dir === "asc" ? 1 : -1 }
}

const isNumeric = (v: unknown): boolean =>
  (typeof v === "number" && Number.isFinite(v)) || (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v)))

/** SQL-like ordering: nulls first, numbers by value, text case-insensitively (the database's collation). */
export const compareValues = (a: unknown, b: unknown): number => {
  if (a === null || a === undefined) return b === null || b === undefined ? 0 : -1
  if (b === null || b === undefined) return 1
  if (typeof a === "boolean" || typeof b === "boolean") return Number(a) - Number(b)
  if (isNumeric(a) && isNumeric(b)) return Number(a) - Number(b)
  const x = String(a).toLowerCase()
  const y = String(b).toLowerCase()
  return x < y ? -1 : x > y ? 1 : 0
}

/** Sorts by the order's column; ties fall back to id so pages are stable. */
export const sortRows = <T extends { id: number }>(
  rows: T[],
  order: Order,
  value: (row: T, column: string) => unknown,
): T[] =>
  [...rows].sort((a, b) => order.direction * compareValues(value(a, order.column), value(b, order.column)) || a.id - b.id)

export interface SearchTerm {
  /** `email` for `email:x`; null for plain text. */
  command: string | null
  value: string
}

/** Splits on spaces outside double quotes; `name:value` terms become commands. */
export const searchTerms = (search: string): SearchTerm[] =>
  [...search.matchAll(/(?:[^\s"]+|"[^"]*")+/g)].map(([token]) => {
    const match = /^([a-z_]+):(.*)$/i.exec(token)
    const unquote = (s: string): string => s.replace(/"/g, "")
    return match ? { command: match[1]!.toLowerCase(), value: unquote(match[2]!) } : { command: null, value: unquote(token) }
  })

/** A SQL LIKE pattern (`%`, `_`) as a case-insensitive regular expression. */
export const likePattern = (pattern: string): RegExp =>
  new RegExp(
    `^${pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/%/g, ".*").replace(/_/g, ".")}$`,
    "is",
  )

export interface WhereClause {
  col: string
  expr: string
  val: unknown
}

const WHERE_EXPRESSIONS = new Set([
  "eq", "neq", "lt", "lte", "gt", "gte", "like", "notLike", "in", "notIn", "isNull", "isNotNull", "isEmpty", "isNotEmpty",
])

export const readWhere = (query: Params): WhereClause[] =>
  asList(query["where"]).map((raw, index) => {
    const clause = asRecord(raw)
    const col = clause?.["col"]
    const expr = clause?.["expr"]
    if (typeof col !== "string" || typeof expr !== "string") {
      throw apiError(400, `where[${index}] needs col and expr`)
    }
    if (!WHERE_EXPRESSIONS.has(expr)) throw apiError(400, `where[${index}]: unsupported expr '${expr}'`)
    return { col, expr, val: clause?.["val"] }
  })

const equalsValue = (value: unknown, wanted: unknown): boolean =>
  value !== null && value !== undefined && compareValues(value, wanted) === 0

/** `in`/`notIn` take an array, a bracket map or a comma-separated string. */
const valueList = (val: unknown): unknown[] => (typeof val === "string" ? val.split(",") : asList(val))

export const matchesWhere = (value: unknown, { expr, val }: WhereClause): boolean => {
  const blank = value === null || value === undefined || value === ""
  switch (expr) {
    case "eq": return equalsValue(value, val)
    case "neq": return !blank && !equalsValue(value, val)
    case "lt": return !blank && compareValues(value, val) < 0
    case "lte": return !blank && compareValues(value, val) <= 0
    case "gt": return !blank && compareValues(value, val) > 0
    case "gte": return !blank && compareValues(value, val) >= 0
    case "like": return !blank && likePattern(String(val)).test(String(value))
    case "notLike": return !blank && !likePattern(String(val)).test(String(value))
    case "in": return valueList(val).some((v) => equalsValue(value, v))
    case "notIn": return !blank && !valueList(val).some((v) => equalsValue(value, v))
    case "isNull": return value === null || value === undefined
    case "isNotNull": return !(value === null || value === undefined)
    case "isEmpty": return blank
    default: return !blank // isNotEmpty
  }
}
