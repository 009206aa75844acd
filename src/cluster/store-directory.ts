import { Context, type Duration, type Effect, Schema } from "effect"

/** A registered store as the schedule sees it. */
export interface ScheduledStore {
  readonly storeId: string
  /** How often the store's sync fires, cluster-wide. */
  readonly every: Duration.Duration
  /** A paused store gets no scheduled sync. */
  readonly enabled: boolean
}

/** A day range of a backfill, as ISO dates (YYYY-MM-DD); no `until` means today. */
export interface BackfillRange {
  readonly since: string
  readonly until: string | undefined
}

/**
 * A sync or backfill that ran (or found the store's lock held), as its sender prints it: a schema, it travels back to
 * the sender (`stores sync` through the cluster) in the message's reply.
 */
export const StoreRunDone = Schema.Struct({
  outcome: Schema.Literal("succeeded", "skipped_locked"),
  /** The runner that ran it, host:port. */
  runner: Schema.String,
  /** The run's table and figures, as `shopsync sync` prints them (empty when skipped). */
  report: Schema.String
})
export type StoreRunDone = typeof StoreRunDone.Type

/** Work for a store that failed; the message is what the operator reads. A schema: it travels back to the sender. */
export class StoreWorkFailed extends Schema.TaggedError<StoreWorkFailed>()("StoreWorkFailed", {
  storeId: Schema.String,
  message: Schema.String,
  /** Some streams failed, the others ran (exit 2, as `shopsync sync`); `report` is the run's table then. */
  partial: Schema.optional(Schema.Boolean),
  report: Schema.optional(Schema.String)
}) {}

/**
 * What the cluster needs from the rest of shopsync: the stores to schedule and the work a store entity does.
 * The cluster code depends on this interface only; the store registry (and the sync engine behind it) implements it,
 * so the runner stays testable with a fake directory and the registry stays free of cluster types.
 */
export class StoreDirectory extends Context.Tag("shopsync/cluster/StoreDirectory")<StoreDirectory, {
  readonly list: Effect.Effect<ReadonlyArray<ScheduledStore>, StoreWorkFailed>
  /** `trigger` says why it runs: the schedule's slot key or the sender's key of a manual sync. */
  readonly syncStore: (storeId: string, trigger: string) => Effect.Effect<StoreRunDone, StoreWorkFailed>
  readonly backfillStore: (storeId: string, range: BackfillRange) => Effect.Effect<StoreRunDone, StoreWorkFailed>
  readonly pushContacts: (storeId: string) => Effect.Effect<void, StoreWorkFailed>
  /**
   * Applies the store's pending webhook deliveries, in arrival order: the one `deliveryId` names (stored by an
   * endpoint before it sent the message) and any other waiting, such as one whose message was lost.
   */
  readonly applyDelivery: (storeId: string, deliveryId: string) => Effect.Effect<void, StoreWorkFailed>
}>() {}
