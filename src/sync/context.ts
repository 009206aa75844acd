import type { Effect } from "effect"

/** The streams a run can take, in the order they are reported. */
export const STREAMS = ["orders", "refunds", "products", "customers", "reports"] as const
export type StreamName = (typeof STREAMS)[number]

export type RunMode =
  | { readonly kind: "sync" }
  /** Re-reads what was created in [since, until] (store-local days), without moving incremental cursors. */
  | { readonly kind: "backfill"; readonly since: string; readonly until: string }

export interface ProgressSink {
  readonly page: (stream: string, rows: number, total: number) => Effect.Effect<void>
}

/** What one run shares between its streams. Holds ids and days, never documents. */
export interface RunContext {
  readonly storeId: string
  readonly runId: number
  readonly mode: RunMode
  /** Exclusive upper bound of this run (epoch second of the store's clock minus the settle time). */
  readonly upper: number
  readonly progress: ProgressSink
  /** Orders loaded by this run (refunds fall back to per-order lists for these). */
  readonly changedOrders: Set<number>
  /** Registered customers seen on orders loaded by this run. */
  readonly orderCustomers: Set<number>
  /** Completes when the orders stream has ended (or did not run): the two sets above are then whole. */
  readonly ordersDone: Effect.Effect<void>
}
