// fitCheck must answer exactly what Schema.is answers, for every schema store documents are checked against:
// each schema is tried on a document that fits and on every one-field change of it (missing, undefined, null,
// another type, a malformed value), nested fields included.
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { fitCheck } from "../../src/schema-check/fit-check.js"
import * as S from "../../src/store-client/schemas.js"

const line = { id: 11, quantity: 2, name: "Mug", total: "9.00" }
const order = {
  id: 7, status: "completed", currency: "EUR", total: "18.00", customer_id: 3, date_created: "2026-03-08T02:30:00",
  date_created_gmt: "2026-03-08T01:30:00", date_modified_gmt: "2026-03-09T01:30:00", billing: { email: "a@example.com" },
  line_items: [line, { ...line, id: 12 }], shipping_lines: []
}

const cases: ReadonlyArray<readonly [string, Schema.Schema<any, any>, unknown]> = [
  ["Order", S.Order, order],
  ["Refund", S.Refund, { id: 5, parent_id: 7, amount: "3.50", date_created: "2026-03-08T02:30:00", date_created_gmt: "2026-03-08T01:30:00" }],
  ["Customer", S.Customer, { id: 3, email: "a@example.com", role: "customer" }],
  ["Product", S.Product, { id: 9, type: "variable", date_created_gmt: "2026-01-01T00:00:00", date_modified_gmt: "2026-01-02T00:00:00" }],
  ["Variation", S.Variation, { id: 10 }],
  ["SalesReportDay", S.SalesReportDay, { sales: "10.00", orders: 1, items: 2, tax: "1.00", shipping: "0.00", discount: 0, customers: 1, refunds: "0.00" }],
  ["WithStringId", S.WithStringId, { id: "general" }],
  ["WithSlug", S.WithSlug, { slug: "books" }],
  ["ReferenceEntry", S.ReferenceEntry, { code: "DE" }],
  ["ZoneMethod", S.ZoneMethod, { instance_id: 1, method_id: "flat_rate" }],
  ["Download", S.Download, { download_id: "x", order_id: 1, product_id: 2 }],
  ["TopSeller", S.TopSeller, { product_id: 1, quantity: 3 }]
]

const REPLACEMENTS: ReadonlyArray<unknown> = [undefined, null, 0, -1, 1.5, "", "x", "12.30", "2026-03-08T02:30:00", true, [], {}, [{}]]

/** The document, and every document one change away from it, nested objects and arrays included. */
const variants = (value: unknown): Array<unknown> => {
  if (value === null || typeof value !== "object") return REPLACEMENTS.filter((r) => r !== value)
  const out: Array<unknown> = []
  const entries = Object.entries(value)
  entries.forEach(([key, field]) => {
    const rest = Object.fromEntries(entries.filter(([k]) => k !== key))
    if (!Array.isArray(value)) out.push(rest)
    for (const v of variants(field)) out.push(Array.isArray(value) ? value.map((x, i) => (String(i) === key ? v : x)) : { ...rest, [key]: v })
  })
  return out
}

describe("fitCheck", () => {
  for (const [name, schema, doc] of cases) {
    it(`answers what Schema.is answers: ${name}`, () => {
      const fast = fitCheck(schema)
      const is = Schema.is(schema)
      const all = [doc, ...variants(doc), null, undefined, [], "doc", [doc]]
      const disagree = all.filter((v) => fast(v) !== is(v))
      expect(disagree).toEqual([])
      expect(fast(doc)).toBe(true)
      expect(all.filter((v) => !fast(v)).length).toBeGreaterThan(3)
    })
  }
})
