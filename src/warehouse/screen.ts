import { Either, type Schema } from "effect"
import { documentDecoder } from "../schema-check/document.js"
import { maskEmails } from "./personal-data.js"

/**
 * Store documents screened before they reach PostgreSQL: NUL characters removed (text and jsonb cannot hold them;
 * PHP leaks them from serialized meta), and the documents that do not fit their schema set aside, so that one
 * poison record never fails its page.
 */

/** Which resource a document belongs to: what its quarantine rows and cleaning notes are filed under. */
export type Resource = "orders" | "refunds" | "customers" | "products" | "variations"

/** A document set aside (store.quarantine): what names it, why, and its JSON as received. */
export interface Rejected {
  readonly id: string
  readonly kind: "invalid" | "load"
  readonly reason: string
  /** The document as JSON text (a NUL is written as the escape `\u0000`, which text holds). */
  readonly doc: string
  /** The single GET that reads it again; null when it cannot be told. */
  readonly path: string | null
}

/** Documents split into those that fit their schema and those that do not, with the ids of the ones cleaned. */
export interface Screened<A> {
  readonly docs: ReadonlyArray<A>
  /** Where each of `docs` was among the items screened (0-based). */
  readonly kept: ReadonlyArray<number>
  readonly rejected: ReadonlyArray<Rejected>
  readonly cleaned: ReadonlyArray<string>
}

/**
 * Whether a JSON text may hold a NUL: JSON writes one as `\u0000`. An escaped backslash before the text `u0000`
 * matches too; the cleaning then finds no NUL and changes nothing.
 */
export const mayHoldNul = (json: string): boolean => json.includes("\\u0000")

const NUL = /\u0000/g

/** `value` without NUL characters in its strings and keys; the very same value when it has none (copied on write). */
export const withoutNul = (value: unknown): unknown => {
  if (typeof value === "string") return value.includes("\u0000") ? value.replace(NUL, "") : value
  if (Array.isArray(value)) {
    let copy: Array<unknown> | undefined
    value.forEach((v, i) => {
      const c = withoutNul(v)
      if (c !== v) (copy ??= [...value])[i] = c
    })
    return copy ?? value
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value)
    const cleaned = entries.map(([k, v]) => [withoutNul(k) as string, withoutNul(v)] as const)
    return cleaned.some(([k, v], i) => k !== entries[i]![0] || v !== entries[i]![1]) ? Object.fromEntries(cleaned) : value
  }
  return value
}

const field = (doc: unknown, name: string): unknown => (doc !== null && typeof doc === "object" ? (doc as Record<string, unknown>)[name] : undefined)

/** The document's id as text ('' without one). */
export const idOf = (doc: unknown): string => {
  const id = field(doc, "id")
  return typeof id === "number" || typeof id === "string" ? String(id) : ""
}

/** The single GET of a document: children are read under their parent (`parent_id`). */
export const itemPath = (resource: Resource, doc: unknown): string | null => {
  const id = idOf(doc)
  const parent = field(doc, "parent_id")
  if (!/^\d+$/.test(id)) return null
  if (resource === "refunds" || resource === "variations") {
    if (typeof parent !== "number" || !Number.isInteger(parent) || parent <= 0) return null
    return resource === "refunds" ? `/orders/${parent}/refunds/${id}` : `/products/${parent}/variations/${id}`
  }
  return `/${resource}/${id}`
}

/**
 * A document PostgreSQL refused, or one that does not fit, as a quarantine row. The reason quotes the document's
 * values and is shown on the status page and by `status`: its e-mail addresses are masked (the document is kept whole).
 */
export const rejectedDoc = (resource: Resource, doc: unknown, kind: Rejected["kind"], reason: string): Rejected => ({
  id: idOf(doc),
  kind,
  reason: maskEmails(reason.replace(NUL, "")),
  doc: JSON.stringify(doc) ?? "null",
  path: itemPath(resource, doc)
})

/**
 * Checks documents one by one against `schema` (the store client's check, `Schema.is`, as fast as checking the
 * page whole), removing NULs first when `clean` says the page may hold some.
 */
export const screener = <A>(resource: Resource, schema: Schema.Schema<A, any>) => {
  const decode = documentDecoder(schema as Schema.Schema<A>)
  return (items: ReadonlyArray<unknown>, clean: boolean): Screened<A> => {
    const docs: Array<A> = []
    const kept: Array<number> = []
    const rejected: Array<Rejected> = []
    const cleaned: Array<string> = []
    items.forEach((item, i) => {
      const doc = clean ? withoutNul(item) : item
      if (doc !== item) cleaned.push(idOf(item))
      const result = decode(doc)
      if (Either.isRight(result)) {
        docs.push(result.right)
        kept.push(i)
      } else rejected.push(rejectedDoc(resource, item, "invalid", result.left))
    })
    return { docs, kept, rejected, cleaned }
  }
}
