// `marketing-hooks ensure|remove` against both list shapes: the seed's map keyed by id and the real array.
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MarketingClient } from "../../src/marketing-client/client.js"
import { ensureHook, removeHooks } from "../../src/marketing-client/hooks.js"
import { failureOf, type MarketingHarness, makeMarketingHarness, requestsTo } from "../support/marketing.js"

const URL_A = "https://hooks.example.com/shopsync"
const NEW = "mautic.lead_post_save_new"
const UPDATE = "mautic.lead_post_save_update"

for (const shape of ["map", "array"] as const) {
  describe(`webhook subscriptions (${shape} list answers)`, () => {
    let m: MarketingHarness
    beforeAll(async () => {
      m = await makeMarketingHarness({ marketing: { hooksListShape: shape }, store: { data: { seed: 2, orders: 30, customers: 10, start: "2026-01-05", days: 10 } } })
    })
    afterAll(() => m.close())
    const writes = () => m.mk.requests.filter((r) => r.method !== "GET" && r.url.startsWith("/api/hooks")).map((r) => `${r.method} ${r.url} ${r.status}`)

    it("creates the webhook once; ensuring it again changes nothing", async () => {
      const first = await m.run(ensureHook({ url: URL_A, triggers: [NEW, UPDATE] }))
      expect(first.action).toBe("created")
      const second = await m.run(ensureHook({ url: URL_A, triggers: [UPDATE, NEW] }))
      expect(second).toMatchObject({ action: "unchanged", hook: { id: first.hook.id } })
      expect(writes()).toEqual(["POST /api/hooks/new 201"])
      expect(m.mk.state.listHooks().map((h) => [h.webhookUrl, h.triggers.sort(), h.isPublished])).toEqual([[URL_A, [NEW, UPDATE], true]])
    })

    it("repairs triggers and publication with PATCH, and removes duplicates", async () => {
      const [hook] = m.mk.state.listHooks()
      await m.run(Effect.flatMap(MarketingClient, (c) => c.patchHook(hook!.id, { triggers: [NEW], isPublished: false })))
      await m.run(Effect.flatMap(MarketingClient, (c) => c.createHook({ name: "copy", webhookUrl: URL_A, triggers: [NEW] })))
      const result = await m.run(ensureHook({ url: URL_A, triggers: [NEW, UPDATE] }))
      expect(result).toMatchObject({ action: "repaired", hook: { id: hook!.id } })
      expect(result.removedDuplicates).toHaveLength(1)
      expect(m.mk.state.listHooks().map((h) => [h.id, h.triggers.sort(), h.isPublished])).toEqual([[hook!.id, [NEW, UPDATE], true]])
    })

    it("finds its webhook beyond the first page of the list", async () => {
      await m.run(Effect.forEach(Array.from({ length: 120 }, (_, i) => i), (i) =>
        Effect.flatMap(MarketingClient, (c) => c.createHook({ name: `other ${i}`, webhookUrl: `https://other.example.com/${i}`, triggers: [NEW] }))))
      const last = "https://other.example.com/119"
      expect(await m.run(ensureHook({ url: last, triggers: [NEW] }))).toMatchObject({ action: "unchanged" })
      expect(requestsTo(m.mk, "GET", "/api/hooks").length).toBeGreaterThan(0)
      expect(m.mk.requests.some((r) => r.url.startsWith("/api/hooks?") && r.url.includes("start=100"))).toBe(true)
    })

    it("rejects unknown triggers, naming the ones the service offers", async () => {
      const failure = failureOf(await m.runExit(ensureHook({ url: URL_A, triggers: ["lead_post_save_new"] })))
      expect(failure?._tag).toBe("MarketingSetupInvalid")
      expect(failure?.message).toContain("unknown trigger(s) lead_post_save_new")
      expect(failure?.message).toContain(NEW)
    })

    it("removes every webhook with the URL", async () => {
      expect(await m.run(removeHooks(URL_A))).toHaveLength(1)
      expect(await m.run(removeHooks(URL_A))).toEqual([])
      expect(m.mk.state.listHooks().filter((h) => h.webhookUrl === URL_A)).toEqual([])
    })
  })
}
