// Poison deliveries through a real `shopsync serve`: correctly signed bodies that PostgreSQL cannot take as they are
// (a NUL, a lone surrogate) or that would make the apply recurse past the stack (a 5,000-deep array). Each ends
// cleaned-and-applied or failed with its reason, the valid deliveries after them are applied, and /healthz stays ok.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { StoreSimulator } from "../../src/simulator/store/index.js"
import { freshDatabase, sqlRows } from "../support/database.js"
import { deliver, eventually, type Serve, serveStore, signed } from "../support/serve.js"

const SECRET = "whsec_poison_test"
const STORE = "poison-t"

describe("shopsync serve survives poison deliveries", () => {
  let sim: StoreSimulator
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let serve: Serve
  let deliveryId = 950_000
  const q = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => sqlRows<T>(db.url, text, params)
  const send = (topic: string, body: string) =>
    deliver(serve.hookUrl, body, {
      "x-wc-webhook-id": "1",
      "x-wc-webhook-topic": topic,
      "x-wc-webhook-delivery-id": String(++deliveryId),
      "x-wc-webhook-signature": signed(body, SECRET)
    })
  const product = async (id: number) =>
    await (await fetch(`${sim.url}/products/${id}`, { headers: { authorization: `Basic ${Buffer.from("ck_demo:cs_demo").toString("base64")}` } })).json() as Record<string, unknown>
  const nameOf = async (id: number) => (await q<{ name: string }>("SELECT doc->>'name' AS name FROM store.products WHERE store_id = $1 AND id = $2", [STORE, id]))[0]?.name

  let close: (() => Promise<void>) | undefined

  beforeAll(async () => {
    ;({ sim, db, serve, close } = await serveStore({ seed: 21, orders: 30, customers: 10, products: 16, start: "2026-06-01", days: 5 }, STORE, SECRET))
  })
  afterAll(async () => {
    await close?.()
  })

  it("a NUL is cleaned, a lone surrogate and a 5,000-deep array fail with their reason, and the valid deliveries after them are applied", async () => {
    const simple = sim.state.products.filter((p) => p.type === "simple").map((p) => p.id)
    expect(simple.length).toBeGreaterThanOrEqual(4)
    const [a, b, c, d] = simple as [number, number, number, number]
    // Later than anything the store holds, so the warehouse takes them as newer, and not in the future (which would
    // have the store's own copy read instead).
    const later = (doc: Record<string, unknown>, step: number) => ({ ...doc, date_modified_gmt: new Date(Date.now() - 3_600_000 + step * 1000).toISOString().slice(0, 19) })

    const nul = JSON.stringify(later({ ...await product(a), name: "Poison\u0000Lamp" }, 1))
    expect(nul).toContain("\\u0000")
    const surrogate = JSON.stringify(later({ ...await product(b), name: "SURROGATE" }, 1)).replace("SURROGATE", "Lone \\ud800 lamp")
    const deep = JSON.stringify(later({ ...await product(c), name: "Deep lamp" }, 1)).replace(/}$/, `,"nest":${"[".repeat(5000)}${"]".repeat(5000)}}`)
    const valid = [b, c, d].map((id, i) => async () => JSON.stringify(later({ ...await product(id), name: `Valid lamp ${i}` }, 2)))

    const poisonedAt = Date.now()
    for (const body of [nul, surrogate, deep]) expect((await send("product.updated", body)).status).toBe(200)
    for (const body of valid) expect((await send("product.updated", await body())).status).toBe(200)

    await eventually(async () => await nameOf(b) === "Valid lamp 0", 15_000, "the first valid delivery applied")
    const first = Date.now() - poisonedAt
    await eventually(async () => await nameOf(d) === "Valid lamp 2", 15_000, "the last valid delivery applied")
    console.log(`serve-poison: from the first poison delivery sent, the next valid one applied after ${first} ms, the last after ${Date.now() - poisonedAt} ms`)
    expect(await nameOf(a)).toBe("PoisonLamp")
    expect(await nameOf(b)).toBe("Valid lamp 0")
    expect(await nameOf(c)).toBe("Valid lamp 1")

    const rows = await q<{ state: string; reason: string | null }>(
      "SELECT state, reason FROM sync.webhook_inbox WHERE store_id = $1 ORDER BY seq", [STORE])
    expect(rows.map((r) => r.state)).toEqual(["applied", "failed", "failed", "applied", "applied", "applied"])
    expect(rows[1]!.reason).toMatch(/refuses the product: 22P02.*surrogate/i)
    expect(rows[2]!.reason).toMatch(/deeper than 64/)
    expect(await fetch(`${serve.base}/healthz`).then((r) => r.status)).toBe(200)
  })
})
