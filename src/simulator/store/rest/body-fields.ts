// Readers for fields of JSON write bodies with WordPress's schema validation: a wrongly typed field is a 400
// rest_invalid_param naming it. Absent and null fields read as undefined (null "unsets" nothing in WooCommerce).
import { wcError } from "./errors.ts"
import type { Address } from "../model.ts"
import { ADDRESS_KEYS } from "../people.ts"

export type Body = Record<string, unknown>

export const invalid = (name: string, type: string) =>
  wcError(400, "rest_invalid_param", `Invalid parameter(s): ${name}`, { params: { [name]: `${name} is not of type ${type}.` } })

export const isObject = (v: unknown): v is Body => typeof v === "object" && v !== null && !Array.isArray(v)

export const str = (b: Body, k: string, name = k): string | undefined => {
  const v = b[k]
  if (v === undefined || v === null) return undefined
  if (typeof v === "string") return v
  if (typeof v === "number") return String(v)
  throw invalid(name, "string")
}

export const int = (b: Body, k: string, name = k): number | undefined => {
  const v = b[k]
  if (v === undefined || v === null) return undefined
  const n = typeof v === "string" && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v
  if (typeof n === "number" && Number.isInteger(n)) return n
  throw invalid(name, "integer")
}

export const bool = (b: Body, k: string, name = k): boolean | undefined => {
  const v = b[k]
  if (v === undefined || v === null) return undefined
  if (typeof v === "boolean") return v
  if (v === "true" || v === "1" || v === 1) return true
  if (v === "false" || v === "0" || v === 0 || v === "") return false
  throw invalid(name, "boolean")
}

export const money = (b: Body, k: string, name = k): string | number | undefined => {
  const v = b[k]
  if (v === undefined || v === null) return undefined
  if (typeof v === "number" || (typeof v === "string" && /^\s*-?\d*(\.\d*)?\s*$/.test(v))) return v
  throw invalid(name, "string")
}

export const objects = (b: Body, k: string): Body[] | undefined => {
  const v = b[k]
  if (v === undefined || v === null) return undefined
  if (Array.isArray(v) && v.every(isObject)) return v
  throw invalid(k, "array")
}

export const address = (b: Body, k: string): Partial<Address> | undefined => {
  const v = b[k]
  if (v === undefined || v === null) return undefined
  if (!isObject(v)) throw invalid(k, "object")
  const out: Partial<Address> = {}
  for (const field of ADDRESS_KEYS) {
    const value = str(v, field, `${k}[${field}]`)
    if (value !== undefined) out[field] = value
  }
  return out
}

export const meta = (b: Body): { key: string; value: unknown }[] | undefined =>
  objects(b, "meta_data")?.map((m, i) => ({ key: str(m, "key", `meta_data[${i}][key]`) ?? "", value: m["value"] ?? "" }))

export const oneOf = <V extends string>(b: Body, k: string, values: ReadonlyArray<V>): V | undefined => {
  const v = str(b, k)
  if (v === undefined || (values as ReadonlyArray<string>).includes(v)) return v as V | undefined
  throw wcError(400, "rest_invalid_param", `Invalid parameter(s): ${k}`, { params: { [k]: `${k} is not one of ${values.join(", ")}.` } })
}

export const object = (b: Body, k: string): Body | undefined => {
  const v = b[k]
  if (v === undefined || v === null) return undefined
  if (isObject(v)) return v
  throw invalid(k, "object")
}

/** An array of integers (ids), e.g. upsell_ids. */
export const intList = (b: Body, k: string): number[] | undefined => {
  const v = b[k]
  if (v === undefined || v === null) return undefined
  if (Array.isArray(v) && v.every((x) => Number.isInteger(typeof x === "string" && /^\s*\d+\s*$/.test(x) ? Number(x) : x))) return v.map(Number)
  throw invalid(k, "array")
}

/** An array of strings (a comma-separated string is accepted, as WordPress's schema sanitising does). */
export const strList = (b: Body, k: string): string[] | undefined => {
  const v = b[k]
  if (v === undefined || v === null) return undefined
  if (typeof v === "string") return v.split(",").map((s) => s.trim()).filter((s) => s !== "")
  if (Array.isArray(v) && v.every((x) => typeof x === "string" || typeof x === "number")) return v.map(String)
  throw invalid(k, "array")
}

/** WordPress's answer to a missing required argument. */
export const missing = (...names: string[]) =>
  wcError(400, "rest_missing_callback_param", `Missing parameter(s): ${names.join(", ")}`, { params: names })
