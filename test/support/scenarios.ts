// Small helpers shared by the e2e scenarios: reading the warehouse in the simulator's terms and comparing the two.
import { expect } from "vitest"
import type { StoreState } from "../../src/simulator/store/index.js"
import { type Harness, STORE_ID } from "./harness.js"

/** Epoch milliseconds of an ISO instant (for manualClock.set). */
export const ms = (iso: string): number => {
  const t = Date.parse(iso)
  if (Number.isNaN(t)) throw new Error(`not an instant: ${iso}`)
  return t
}

/** Epoch seconds of an ISO instant. */
export const sec = (iso: string): number => Math.floor(ms(iso) / 1000)

/** The local calendar day (YYYY-MM-DD) of an epoch second in an IANA zone, computed with Intl only. */
export const localDay = (epochSeconds: number, timezone: string): string =>
  new Intl.DateTimeFormat("en-CA", { timeZone: timezone, year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date(epochSeconds * 1000))

export interface WarehouseRow {
  readonly id: number
  readonly status: string
  /** date_modified (orders) or date_created (refunds), epoch seconds. */
  readonly at: number
  readonly deleted: boolean
}

/** An order as if the sync had never loaded it: its row and its lines. */
export const forgetOrder = (h: Harness, id: number) =>
  h.rows(`WITH l1 AS (DELETE FROM store.order_line_items WHERE store_id = $1 AND order_id = $2),
               l2 AS (DELETE FROM store.order_tax_lines WHERE store_id = $1 AND order_id = $2),
               l3 AS (DELETE FROM store.order_shipping_lines WHERE store_id = $1 AND order_id = $2),
               l4 AS (DELETE FROM store.order_fee_lines WHERE store_id = $1 AND order_id = $2),
               l5 AS (DELETE FROM store.order_coupon_lines WHERE store_id = $1 AND order_id = $2)
          DELETE FROM store.orders WHERE store_id = $1 AND id = $2`, [STORE_ID, id])

export const warehouseOrders = async (h: Harness): Promise<Map<number, WarehouseRow>> => {
  const rows = await h.rows<WarehouseRow>(
    `SELECT id::int AS id, status, extract(epoch FROM date_modified)::int AS at, deleted_at IS NOT NULL AS deleted
     FROM store.orders WHERE store_id = $1`,
    [STORE_ID]
  )
  return new Map(rows.map((r) => [r.id, r]))
}

export const warehouseRefunds = async (h: Harness): Promise<Map<number, WarehouseRow & { orderId: number; amountCents: number }>> => {
  const rows = await h.rows<WarehouseRow & { orderId: number; amountCents: number }>(
    `SELECT id::int AS id, 'refund' AS status, extract(epoch FROM date_created)::int AS at, deleted_at IS NOT NULL AS deleted,
            order_id::int AS "orderId", (amount * 100)::int AS "amountCents"
     FROM store.refunds WHERE store_id = $1`,
    [STORE_ID]
  )
  return new Map(rows.map((r) => [r.id, r]))
}

/**
 * The warehouse holds exactly the store's orders: every order the store has (trashed ones included) is present,
 * not marked deleted, with the store's status and date_modified; every other warehouse order is marked deleted.
 */
export const expectOrdersMatchStore = async (h: Harness, state: StoreState = h.sim.state): Promise<void> => {
  const ours = await warehouseOrders(h)
  const theirs = new Map(state.orders.map((o) => [o.id, { id: o.id, status: o.status, at: o.modified, deleted: false }]))
  const live = [...ours.values()].filter((r) => !r.deleted).sort((a, b) => a.id - b.id)
  expect(live).toEqual([...theirs.values()].sort((a, b) => a.id - b.id))
  const gone = [...ours.values()].filter((r) => !theirs.has(r.id))
  expect(gone.filter((r) => !r.deleted).map((r) => r.id)).toEqual([])
}

/** Same for refunds: the store's refunds present and live (with their order and amount); the others marked deleted. */
export const expectRefundsMatchStore = async (h: Harness, state: StoreState = h.sim.state): Promise<void> => {
  const ours = await warehouseRefunds(h)
  const live = [...ours.values()].filter((r) => !r.deleted).map((r) => ({ id: r.id, orderId: r.orderId, at: r.at, amountCents: r.amountCents }))
  const theirs = state.refunds.map((r) => ({ id: r.id, orderId: r.orderId, at: r.created, amountCents: r.amount }))
  expect(live.sort((a, b) => a.id - b.id)).toEqual(theirs.sort((a, b) => a.id - b.id))
  const ids = new Set(theirs.map((r) => r.id))
  expect([...ours.values()].filter((r) => !ids.has(r.id) && !r.deleted).map((r) => r.id)).toEqual([])
}

/** Runs a sync that must fail and returns its error's text (the engine's SyncFailed message, or the store error's). */
export const failedSync = async (run: Promise<unknown>): Promise<string> => {
  try {
    await run
  } catch (error) {
    return error instanceof Error ? `${error.message}` : String(error)
  }
  throw new Error("the sync was expected to fail but succeeded")
}

export const streamState = async (h: Harness) =>
  h.rows<{ stream: string; cursor_at: number | null; cursor_id: number | null; last_error: string | null; details: Record<string, unknown> }>(
    `SELECT stream, extract(epoch FROM cursor_at)::int AS cursor_at, cursor_id::int AS cursor_id, last_error, details
     FROM sync.state WHERE store_id = $1 ORDER BY stream`,
    [STORE_ID]
  )

/**
 * Orders a resumed walk may read again though they are loaded: those of the second after each pending cursor of
 * the orders stream. The store gives a second's rows in any order, so a page ending inside a second checkpoints
 * only the seconds before it, and the walk resumed from there reads that second whole.
 */
export const boundaryOrders = async (h: Harness): Promise<number> => {
  const state = (await streamState(h)).find((s) => s.stream === "orders")
  if (state === undefined) return 0
  const slices = (state.details.slices ?? { open: { at: state.cursor_at, id: state.cursor_id } }) as Record<string, { at: number | null }>
  const seconds = Object.values(slices).flatMap((c) => (c.at === null ? [] : [c.at + 1]))
  return h.sim.state.orders.filter((o) => seconds.includes(o.modified)).length
}

export const runStatuses = async (h: Harness) =>
  h.rows<{ id: number; command: string; status: string; error: string | null; started: Date; finished: Date | null }>(
    `SELECT id::int AS id, command, status, error, started_at AS started, finished_at AS finished
     FROM sync.runs WHERE store_id = $1 ORDER BY id`,
    [STORE_ID]
  )

/** Ids of the orders whose status counts as a sale (the reference's definition). */
export const COUNTED = new Set(["processing", "completed", "on-hold", "refunded"])

/**
 * After a run stopped part-way through the orders: some were committed, not all, and the orders stream's
 * row count is exactly the rows committed with its checkpoints. Returns how many were loaded.
 */
export const expectOrdersPartlyLoaded = async (h: Harness): Promise<number> => {
  const [partial] = await h.rows<{ orders: number; rows_total: number }>(
    `SELECT (SELECT count(*)::int FROM store.orders WHERE store_id = $1) AS orders,
            (SELECT rows_total::int FROM sync.state WHERE store_id = $1 AND stream = 'orders') AS rows_total`,
    [STORE_ID]
  )
  expect(partial!.orders).toBeGreaterThan(0)
  expect(partial!.orders).toBeLessThan(h.sim.state.orders.length)
  expect(partial!.rows_total).toBe(partial!.orders)
  return partial!.orders
}
