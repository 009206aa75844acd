// How values look on the wire. The real service is PHP: its associative arrays keep insertion
// order and json_encode turns them into a JSON list only when the keys are exactly 0..n-1.
// JSON.stringify would reorder integer-like keys, so ordered maps get their own encoder.
import type { Principal } from "./tokens.ts"

/** A JSON object whose keys are written in insertion order (also when they look like integers). */
export class OrderedObject {
  constructor(readonly entries: ReadonlyArray<readonly [string | number, unknown]>) {}
}

/** PHP's json_encode of an array: a list when keyed 0..n-1 (or empty), an ordered object otherwise. */
export const phpArray = (entries: ReadonlyArray<readonly [number, unknown]>): unknown[] | OrderedObject =>
  entries.every(([key], index) => key === index) ? entries.map(([, value]) => value) : new OrderedObject(entries)

export const encodeJson = (value: unknown): string => {
  if (value instanceof OrderedObject) {
    const members = value.entries.filter(([, v]) => v !== undefined)
    return `{${members.map(([k, v]) => `${JSON.stringify(String(k))}:${encodeJson(v)}`).join(",")}}`
  }
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : encodeJson(v))).join(",")}]`
  if (value !== null && typeof value === "object") {
    return encodeJson(new OrderedObject(Object.entries(value)))
  }
  return JSON.stringify(value) ?? "null"
}

/** The service's date format (ISO 8601 with an explicit offset; the simulator runs in UTC). */
export const formatDate = (ms: number): string => `${new Date(ms).toISOString().slice(0, 19)}+00:00`

export interface Audited {
  dateAdded: number | null
  dateModified: number | null
  createdBy: Principal | null
  modifiedBy: Principal | null
}

/** The publish details every entity answers with: when, and by whom, it was created and last modified. */
export const publishDetails = (r: Audited): Record<string, unknown> => ({
  dateAdded: r.dateAdded === null ? null : formatDate(r.dateAdded),
  dateModified: r.dateModified === null ? null : formatDate(r.dateModified),
  createdBy: r.createdBy?.userId ?? null,
  createdByUser: r.createdBy?.name ?? null,
  modifiedBy: r.modifiedBy?.userId ?? null,
  modifiedByUser: r.modifiedBy?.name ?? null,
})
