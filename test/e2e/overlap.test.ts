import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { RequestInfo } from "../../src/simulator/store/app.js"
import { manualClock } from "../../src/simulator/store/index.js"
import { type Harness, makeHarness } from "../support/harness.js"
import { expectOrdersMatchStore, expectRefundsMatchStore, ms, runStatuses } from "../support/scenarios.js"

/** Holds every store request until released, so a run that got the lock is still running while the other tries. */
const makeGate = () => {
  let release!: () => void
  const opened = new Promise<void>((resolve) => (release = resolve))
  return { opened, release }
}

/** Guards against a deadlock turning into a test timeout; not a timing assertion. */
const orTimeout = <A>(p: Promise<A>, label: string) =>
  Promise.race([p, new Promise<string>((resolve) => setTimeout(() => resolve(`timeout: ${label}`), 30_000))])

describe("two syncs of the same store at once", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  let hook: ((info: RequestInfo) => Promise<void> | void) | undefined
  beforeAll(async () => {
    h = await makeHarness({
      clock,
      timezone: "America/New_York",
      data: { seed: 91, orders: 600, start: "2026-02-01", days: 60 },
      onRequest: (info) => hook?.(info)
    })
  })
  afterAll(() => h.close())

  it("without waiting: exactly one runs, the other returns at once without a summary", async () => {
    const gate = makeGate()
    hook = () => gate.opened
    const a = h.sync()
    const b = h.sync()
    // The run holding the lock is stuck on its first store request; the other must give up on its own.
    const first = await orTimeout(Promise.race([a, b]), "neither sync returned while one held the lock")
    gate.release()
    hook = undefined
    expect(first).toBeUndefined()
    const results = await Promise.all([a, b])
    expect(results.filter((r) => r === undefined)).toHaveLength(1)
    expect(results.filter((r) => r !== undefined)).toHaveLength(1)
    expect((await runStatuses(h)).map((r) => r.status)).toEqual(["succeeded"])
    await expectOrdersMatchStore(h)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })

  it("with wait: both complete one after the other, and the warehouse equals the reference", async () => {
    const state = h.sim.state
    clock.advance(60_000)
    const order = state.orders.find((o) => o.status === "processing")!
    state.updateOrder(order.id, { status: "completed" })
    const refunded = state.orders.find((o) => o.status === "completed" && o.refundIds.length === 0)!
    state.createRefund(refunded.id, { amount: "4.00" })
    state.createOrder({ status: "completed", currency: "GBP", line_items: [{ product_id: state.products[0]!.id, quantity: 3 }] })
    clock.advance(2_000)

    const gate = makeGate()
    hook = () => gate.opened
    const a = h.sync({ wait: true })
    const b = h.sync({ wait: true })
    // Keep the lock holder busy long enough for the other run to find the lock taken and start waiting.
    await new Promise((resolve) => setTimeout(resolve, 500))
    gate.release()
    hook = undefined
    const results = await orTimeout(Promise.all([a, b]), "the waiting sync never ran")
    expect(Array.isArray(results) && results.every((r) => r !== undefined)).toBe(true)

    const runs = (await runStatuses(h)).slice(1)
    expect(runs.map((r) => r.status)).toEqual(["succeeded", "succeeded"])
    // Never at the same time: the second started after the first had finished.
    expect(runs[1]!.started.getTime()).toBeGreaterThanOrEqual(runs[0]!.finished!.getTime())
    await expectOrdersMatchStore(h)
    await expectRefundsMatchStore(h)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })
})
