import { Args, Command } from "@effect/cli"
import { Data, Effect, Layer, Option } from "effect"
import { storeSettingsConfig } from "../config/settings.js"
import { StoreJobs } from "../jobs/store-jobs.js"
import { formatTable } from "../jobs/table.js"
import { DatabaseLive } from "../warehouse/database.js"
import { RESYNC_RESOURCES, type Resynced } from "../webhooks/resync.js"
import { forStore } from "./errors.js"

/** Some documents could not be read again or loaded (exit code 2); the others were. */
export class ResyncFailed extends Data.TaggedError("ResyncFailed")<{ readonly failed: ReadonlyArray<Resynced> }> {
  readonly exitCode = 2
  override get message() {
    return `${this.failed.length} document(s) not resynced: ` +
      this.failed.map((r) => `${r.resource} ${r.id}: ${r.applied.outcome.state === "failed" ? r.applied.outcome.reason : ""}`).join("; ")
  }
}

const resource = Args.choice(RESYNC_RESOURCES.map((r) => [r, r] as const), { name: "RESOURCE" }).pipe(
  Args.withDescription(`what to read again: ${RESYNC_RESOURCES.join(", ")} (a refund is read again with its order)`)
)
const ids = Args.integer({ name: "ID" }).pipe(Args.withDescription("the store's id of each document"), Args.atLeast(1))

const resultText = (done: ReadonlyArray<Resynced>) =>
  formatTable(done.map((r) => ({
    resource: r.resource,
    id: r.id,
    outcome: r.gone ? "gone: marked deleted" : r.applied.outcome.state,
    note: r.applied.outcome.state === "applied" ? "" : (r.applied.outcome.reason ?? "")
  })), ["resource", "id", "outcome", "note"]) + "\n"

export const resyncCommand = Command.make("resync", { resource, ids }, (o) =>
  forStore("resync", (storeId) =>
    Effect.gen(function*() {
      const target = { storeId, settings: yield* storeSettingsConfig, marketing: Option.none() }
      const done = yield* (yield* StoreJobs).resync(target, o.resource, o.ids)
      yield* Effect.sync(() => process.stdout.write(resultText(done)))
      const failed = done.filter((r) => r.applied.outcome.state === "failed")
      if (failed.length > 0) return yield* new ResyncFailed({ failed })
    }).pipe(Effect.provide(StoreJobs.Default.pipe(Layer.provideMerge(DatabaseLive)))))).pipe(
    Command.withDescription(
      "Reads documents again from the store by id and loads them, for a row you doubt: `shopsync resync order 1234 1240`. " +
        "Each is loaded as a webhook delivery of it would be (only over an older or different copy) in a transaction of its " +
        "own; one the store answers 404 for is marked deleted. An order's refunds are read again with it, and a refund is " +
        "read again with its order (which the warehouse must hold). The daily sums follow. Runs beside a sync (no run " +
        "lock). The contacts that changed are pushed by the next sync or `shopsync push`. Exit codes: 0 every document " +
        "read (applied, unchanged or gone); 2 some could not be (the table says why); 1 the command failed; 64 a mistake " +
        "in the arguments."
    )
  )
