// The webhook apply pass over generated hostile deliveries (deep nesting, NULs, lone surrogates, huge strings, wrong
// types, text that is not JSON), against a real warehouse: the pass never dies, and passed again until it has
// nothing left, every delivery ends applied, skipped or failed (one that errs is tried again, 5 times at most).
import { Effect, Exit, FastCheck as fc, Layer, ManagedRuntime, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { StoreClient } from "../../src/store-client/client.js"
import { StoreUnreachable } from "../../src/store-client/errors.js"
import { pgLayer } from "../../src/warehouse/database.js"
import { storeWarehouse } from "../../src/jobs/layers.js"
import { migrate } from "../../src/warehouse/migrate.js"
import { bodyDigest, Inbox } from "../../src/webhooks/inbox.js"
import { applyPass, type PassOptions } from "../../src/webhooks/worker.js"
import { freshDatabase, sqlRows } from "../support/database.js"

const STORE = "hostile-t"
/** Passes enough for every delivery of a run to exhaust its tries when each errs. */
const MAX_PASSES = 5 * 12 + 1

/** A store that never answers: what a delivery reads from it (a deletion, refunds, variations) errs, to be tried again. */
const unreachable = (path: string) => Effect.fail(new StoreUnreachable({ method: "GET", url: path, reason: "test", attempts: 1 }))
const StoreDown = Layer.succeed(StoreClient, StoreClient.of({
  storeId: STORE, perPage: 100, settleSeconds: 0, concurrency: 1,
  list: unreachable, get: unreachable, send: (_write, path) => unreachable(path),
  requestCount: Effect.succeed(0), logPace: () => Effect.void
}))

const layerOf = (url: string) => Layer.mergeAll(Inbox.Default, StoreDown).pipe(Layer.provideMerge(pgLayer(Redacted.make(url), 4)))

const hostileString = fc.oneof(
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.constantFrom("\u0000", "a\u0000b", "\ud800", "x\udfff", "\ud83d", "\u0000\ud800"),
  fc.integer({ min: 100_000, max: 400_000 }).map((n) => "z".repeat(n))
)
/** Leaves of the deep values, as JSON text. */
const DEEP_LEAVES = ['"x"', '"\\u0000"', '"\\ud800"', "1", "null"]
/**
 * A value nested up to 6,000 levels (arrays or objects), as a token that `expand` turns into its JSON text: the
 * generator itself must not recurse over it (JSON.stringify overflows the stack on it, which is the point).
 */
const nested = fc.tuple(fc.oneof(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 65, max: 6000 })), fc.boolean(), fc.nat(DEEP_LEAVES.length - 1)).map(([depth, arrays, leaf]) => `DEEP:${depth}:${arrays ? "a" : "o"}:${leaf}`)
const expand = (json: string) =>
  json.replace(/"DEEP:(\d+):([ao]):(\d)"/g, (_, depth: string, kind: string, leaf: string) => {
    const n = Number(depth)
    return kind === "a" ? `${"[".repeat(n)}${DEEP_LEAVES[Number(leaf)]}${"]".repeat(n)}` : `${'{"k":'.repeat(n)}${DEEP_LEAVES[Number(leaf)]}${"}".repeat(n)}`
  })
const leafValue = fc.oneof(hostileString, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant([]), fc.constant({}))
const field = fc.oneof(leafValue, nested, fc.array(leafValue, { maxLength: 4 }), fc.dictionary(hostileString, leafValue, { maxKeys: 3 }))

/** Mostly `valid`, sometimes a value of the wrong type or a hostile one. */
const mostly = <A>(valid: fc.Arbitrary<A>) => fc.oneof({ weight: 15, arbitrary: valid }, { weight: 1, arbitrary: leafValue })
const date = fc.constantFrom("2026-06-01T00:00:00", "2026-06-02T00:00:00", "2030-01-01T00:00:00")

/** A document that fits the order, customer and product schemas more often than not, with hostile fields. */
const doc = fc.record({
  id: mostly(fc.integer({ min: 1, max: 50 })),
  type: mostly(fc.constantFrom("simple", "variable", "variation")),
  status: mostly(fc.constantFrom("processing", "completed", "trash")),
  currency: mostly(fc.constant("USD")),
  total: mostly(fc.constantFrom("12.50", "0.00")),
  customer_id: mostly(fc.constant(0)),
  email: mostly(fc.constant("buyer@example.com")),
  date_created: mostly(date),
  date_created_gmt: mostly(date),
  date_modified_gmt: mostly(date),
  line_items: mostly(fc.constant([])),
  name: fc.oneof({ weight: 2, arbitrary: fc.string() }, { weight: 1, arbitrary: hostileString }),
  meta_data: field,
  refunds: fc.oneof(fc.constant([]), fc.constant([{ id: 9 }]), field)
}, { requiredKeys: ["id"] })

const body = fc.oneof(
  { weight: 6, arbitrary: doc.map((d) => expand(JSON.stringify(d))) },
  // A lone surrogate as JSON's escape, as a PHP store writes it.
  { weight: 2, arbitrary: doc.map((d) => expand(JSON.stringify({ ...d, name: "MARK" })).replace("MARK", "\\ud800")) },
  { weight: 1, arbitrary: fc.oneof(fc.string({ unit: "binary", maxLength: 30 }), field.map((v) => expand(JSON.stringify(v) ?? "undefined"))) }
)
const topic = fc.constantFrom("order.updated", "order.created", "customer.updated", "product.updated", "product.created", "order.deleted", "coupon.updated")
const deliveries = fc.array(fc.record({ topic, body }), { minLength: 1, maxLength: 12 })

describe("the apply pass over hostile deliveries", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let runtime: ManagedRuntime.ManagedRuntime<Layer.Layer.Success<ReturnType<typeof layerOf>>, unknown>
  let delivery = 0
  let runs = 0

  beforeAll(async () => {
    db = await freshDatabase()
    runtime = ManagedRuntime.make(layerOf(db.url))
    await runtime.runPromise(migrate)
  })
  afterAll(async () => {
    console.log("apply-pass-hostile: deliveries by outcome", JSON.stringify(await sqlRows(db.url, "SELECT state, count(*)::int AS n FROM sync.webhook_inbox GROUP BY state ORDER BY state")))
    await runtime?.dispose()
    await db?.drop()
  })

  /**
   * Stores the deliveries, then passes until nothing is pending: each pass must end without dying. Each run has a
   * store of its own, so what one run left pending cannot fail the next (and shrinking finds the real culprit).
   */
  const run = (storeId: string, items: ReadonlyArray<{ topic: string; body: string }>) =>
    Effect.gen(function*() {
      const inbox = yield* Inbox
      for (const d of items) yield* inbox.add({ storeId, webhookId: "1", deliveryId: String(++delivery), topic: d.topic, body: d.body, digest: bodyDigest(d.topic, Buffer.from(d.body)) }, 1 << 30)
      const options: PassOptions = { attempts: new Map(), count: () => Effect.void, unapplicable: () => Effect.void }
      for (let i = 0; i < MAX_PASSES; i++) {
        const exit = yield* Effect.exit(applyPass(storeId, options).pipe(Effect.provide(storeWarehouse(storeId))))
        if (Exit.isFailure(exit)) return yield* Effect.fail(new Error(`pass ${i + 1} ended: ${String(exit.cause)}`))
        if ((yield* inbox.pending(storeId, 1)).length === 0) return
      }
    })

  it("never dies, and leaves no delivery pending", async () => {
    await fc.assert(
      fc.asyncProperty(deliveries, async (items) => {
        const storeId = `${STORE}-${++runs}`
        await runtime.runPromise(run(storeId, items))
        const left = await sqlRows(db.url, "SELECT seq, state FROM sync.webhook_inbox WHERE store_id = $1 AND state NOT IN ('applied', 'skipped', 'failed')", [storeId])
        expect(left).toEqual([])
        const unexplained = await sqlRows(db.url, "SELECT seq FROM sync.webhook_inbox WHERE store_id = $1 AND state IN ('failed', 'skipped') AND (reason IS NULL OR reason = '')", [storeId])
        expect(unexplained).toEqual([])
      }),
      { numRuns: 40, seed: 4242 }
    )
  })
})
