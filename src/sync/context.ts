import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Context, type Effect, type LogLevel, type Ref } from "effect"
import type { StoreClient } from "../store-client/client.js"
import type { StoreError } from "../store-client/errors.js"
import type { LiveRows } from "../warehouse/live-rows.js"
import type { Loader } from "../warehouse/loader.js"
import type { Scopes } from "../warehouse/scopes.js"
import type { StreamName } from "./catalogue.js"
import type { StreamResult } from "./errors.js"
import type { SyncState } from "./state.js"

export type RunMode =
  | { readonly kind: "sync" }
  /** Re-reads what was created in [since, until] (store-local days), without moving incremental cursors. */
  | { readonly kind: "backfill"; readonly since: string; readonly until: string }

export interface ProgressSink {
  readonly page: (stream: string, rows: number, total: number) => Effect.Effect<void>
}

/** How progress is shown: a live display on a terminal, one log line per stream otherwise. */
export class Progress extends Context.Tag("shopsync/Progress")<Progress, ProgressSink & {
  readonly streamDone: (result: StreamResult) => Effect.Effect<void>
  /** The stream's figures leave the display, nothing logged: work whose outcome is reported its own way (a reconciliation). */
  readonly done: (stream: string) => Effect.Effect<void>
  /** The level of a run's lines that only say all went as usual (the pace kept, a stream done with no rows): routineLevel. */
  readonly routine: LogLevel.LogLevel
}>() {}

/** What a sync or backfill is asked to do. */
export interface SyncRequest {
  readonly streams: ReadonlyArray<StreamName>
  readonly mode: RunMode
  readonly waitForLock: boolean
  /** With waitForLock: give up after this many seconds (undefined: wait as long as it takes). */
  readonly waitSeconds?: number
  /** The user named the streams (--streams): they run whether due or not, and one the store does not serve fails the run. */
  readonly named: boolean
  /** `sync --full-refresh`: the streams' cursors are forgotten under the run lock first, so they are read from the start. */
  readonly fullRefresh?: boolean
  readonly customersFullScanHours: number
  /** Hours between full passes over every parent of a child stream (variations, notes, terms, …); 0: every run. */
  readonly childrenFullPassHours: number
  /** The share of a child stream's parents one run's full pass reads at most (SHOPSYNC_CHILDREN_PASS_PERCENT). */
  readonly childrenPassPercent: number
  /** Days a parent the store has not modified waits between two reads of its children by a full pass (SHOPSYNC_CHILDREN_QUIET_DAYS; 0: every pass). */
  readonly childrenQuietDays: number
  /** Hours before a stream found unavailable is tried again. */
  readonly unavailableRecheckHours: number
  /** Hours between two looks for forced deletions (0: every run; a backfill always looks). */
  readonly deletionsHours: number
  /** Overrides of the catalogue's refresh intervals, by stream. */
  readonly refreshHours: Readonly<Record<string, number>>
  /** Hours between two scheduled reconciliations (SHOPSYNC_VERIFY_HOURS; 0: every run); absent: none is scheduled. */
  readonly verifyHours?: number
}

/** What every stream of one run reads: fixed when the run starts. */
export interface RunContext {
  readonly storeId: string
  readonly runId: number
  readonly mode: RunMode
  /** Exclusive upper bound of this run (epoch second of the store's clock minus the settle time). */
  readonly upper: number
  readonly progress: ProgressSink
  /** Hours between full passes over every parent of a child stream (SHOPSYNC_CHILDREN_FULL_PASS_HOURS); 0: every run. */
  readonly childrenFullPassHours: number
  /** The share of its parents a child stream's full pass reads in one run (SHOPSYNC_CHILDREN_PASS_PERCENT). */
  readonly childrenPassPercent: number
  /** Days between two full passes that read the children of parents the store has not modified in as long (SHOPSYNC_CHILDREN_QUIET_DAYS). */
  readonly childrenQuietDays: number
  /** Hours between full customer scans (SHOPSYNC_CUSTOMERS_FULL_SCAN_HOURS); 0: every run. */
  readonly customersFullScanHours: number
  /** Hours between two looks for forced deletions (SHOPSYNC_DELETIONS_HOURS); 0: every run. */
  readonly deletionsHours: number
}

/** What a stream tells the streams after it, filled as it loads (so a stream that fails still passes on what it loaded). */
export interface Outputs {
  /** The variable products whose variations the products stream read. */
  readonly products: { readonly variable: ReadonlySet<number> }
  /** Keys the resource found new or changed, for its children. */
  readonly product_attributes: { readonly changed: ReadonlyArray<string> }
  readonly shipping_zones: { readonly changed: ReadonlyArray<string> }
}
export type Producer = keyof Outputs

/** How a stream meets the others: its own output (written by it alone), and the others' (each once its producer has ended). */
export interface StreamIO {
  readonly outputs: { readonly [K in Producer]: Ref.Ref<Outputs[K]> }
  readonly inputs: { readonly [K in Producer]: Effect.Effect<Outputs[K]> }
  /** Waits until the orders stream has ended (at once when it is not selected): the orders it wrote are then in the warehouse. */
  readonly ordersEnded: Effect.Effect<void>
}

export interface Counts {
  readonly rows: number
  readonly deleted: number
}

/** What a stream's run may use: the store, the warehouse and the sync's own state. */
export type StreamNeeds = StoreClient | SqlClient.SqlClient | SyncState | Loader | LiveRows | Scopes
export type StreamError = StoreError | SqlError
