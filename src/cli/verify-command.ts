import { Command, Options } from "@effect/cli"
import { Data, Effect, Layer, Option } from "effect"
import { storeSettingsConfig } from "../config/settings.js"
import { logOutcome } from "../sync/outcome.js"
import { capped } from "../sync/reconcile/compare.js"
import { driftCount } from "../sync/reconcile/reconcile.js"
import { RESOURCES, type ResourceName } from "../sync/reconcile/resources.js"
import type { VerifyReport } from "../sync/reconcile/verify.js"
import { DatabaseLive } from "../warehouse/database.js"
import { forStore } from "./errors.js"
import { choiceListOption } from "./streams-option.js"
import { StoreJobs } from "../jobs/store-jobs.js"
import { formatTable } from "../jobs/table.js"

/** The warehouse differed from the store (exit code 2, whether the rows were repaired or not). */
export class DriftFound extends Data.TaggedError("DriftFound")<{ readonly rows: number; readonly resources: ReadonlyArray<string>; readonly repaired: number; readonly repair: boolean }> {
  readonly exitCode = 2
  override get message() {
    const what = `the warehouse differed from the store in ${this.rows} row(s) of ${this.resources.join(", ")}`
    return this.repair
      ? `${what}; ${this.repaired} repaired (read again and loaded, or marked deleted)${this.repaired < this.rows ? `, ${this.rows - this.repaired} not: see the log` : ""}`
      : `${what}; not repaired: run \`shopsync verify --repair\` (a sync repairs them at its next scheduled reconciliation, every SHOPSYNC_VERIFY_HOURS)`
  }
}

const repairOption = Options.boolean("repair").pipe(
  Options.withDescription("read the missing and stale rows again and load them, and mark the gone ones deleted")
)
const waitOption = Options.boolean("wait").pipe(Options.withDescription("if another run holds this store's lock, wait for it instead of exiting 75"))

const resourcesOption = choiceListOption("resources", "resource", RESOURCES, `comma-separated resources to compare (default: all): ${RESOURCES.join(", ")}`)

/** The per-resource table and the pass's figures, on stdout. */
const reportText = (report: VerifyReport): string => {
  const rows = report.resources.map((r) => ({
    resource: r.resource, listed: r.listed, missing: r.missing.length, stale: r.stale.length, gone: r.gone.length,
    repaired: r.repaired, requests: r.requests, seconds: r.seconds.toFixed(1)
  }))
  const idList = (kind: string, ids: ReadonlyArray<number>) => (ids.length === 0 ? [] : [`${kind} ${capped(ids).join(",")}${ids.length > capped(ids).length ? ",…" : ""}`])
  const ids = report.resources.filter((r) => driftCount(r) > 0)
    .map((r) => `  ${r.resource}: ${[...idList("missing", r.missing), ...idList("stale", r.stale), ...idList("gone", r.gone)].join("; ")}`)
  return [
    formatTable(rows, ["resource", "listed", "missing", "stale", "gone", "repaired", "requests", "seconds"]),
    ...ids,
    `verify run ${report.runId}: ${report.requests} requests in ${report.seconds.toFixed(1)} s`
  ].join("\n") + "\n"
}

/** Ends the command: the pass's outcome line, and a DriftFound failure (exit 2) when anything differed. */
const conclude = (report: VerifyReport) =>
  Effect.gen(function*() {
    const drifted = report.resources.filter((r) => driftCount(r) > 0)
    const fields = { command: "verify", run: report.runId, requests: report.requests, seconds: report.seconds, repair: report.repair }
    if (drifted.length === 0) {
      return yield* logOutcome("info", `verify run ${report.runId}: no drift in ${report.resources.map((r) => r.resource).join(", ")}`, { ...fields, outcome: "clean" })
    }
    const failure = new DriftFound({
      rows: drifted.reduce((n, r) => n + driftCount(r), 0),
      resources: drifted.map((r) => r.resource),
      repaired: drifted.reduce((n, r) => n + r.repaired, 0),
      repair: report.repair
    })
    // This line is the command's outcome: the failure's paragraph follows, not a second error line.
    yield* logOutcome("warning", `verify run ${report.runId}: ${failure.message}`, { ...fields, outcome: "drift", resources: failure.resources }, failure)
    return yield* failure
  })

export const verifyCommand = Command.make(
  "verify",
  { repair: repairOption, resources: resourcesOption, wait: waitOption },
  ({ repair, resources, wait }) =>
    forStore("verify", (storeId) =>
      Effect.gen(function*() {
        const selected: ReadonlyArray<ResourceName> = Option.getOrElse(resources, () => RESOURCES)
        const target = { storeId, settings: yield* storeSettingsConfig, marketing: Option.none() }
        const outcome = yield* (yield* StoreJobs).verify(target, { resources: selected, repair, waitForLock: wait })
        if (outcome._tag === "Locked") return yield* outcome.held
        yield* Effect.sync(() => process.stdout.write(reportText(outcome.report)))
        yield* conclude(outcome.report)
      }).pipe(Effect.provide(StoreJobs.Default.pipe(Layer.provideMerge(DatabaseLive)))))
).pipe(
  Command.withDescription(
    "Proves the warehouse complete, without a plugin in the store: lists every id and modification date of orders and " +
      "products (status any and trash), refunds (store-wide /refunds) and customers (every role), a page of 100 per " +
      "request trimmed with _fields, and compares them with the warehouse's live rows both ways: missing (the store has it, " +
      "the warehouse not), stale (another modification date, or trash on one side only), gone (the warehouse holds it live, " +
      "the store's own GET answers 404). Rows dated after the store's clock minus STORE_SETTLE_SECONDS are left to the next " +
      "sync. --repair reads the missing and stale rows again by id and loads them as a sync does, and marks the gone ones " +
      "deleted; a sync runs the same pass, repairing, every SHOPSYNC_VERIFY_HOURS (default 24). Each pass is recorded in " +
      "sync.reconciliations and shown by `status`. Runs under the store's run lock, as a sync. Exit codes: 0 no drift; " +
      "2 drift found (repaired with --repair, the message says which); 75 another run holds the store's lock, nothing " +
      "done; 1 the command failed; 64 a mistake in the options; 130/143 stopped by SIGINT/SIGTERM."
  )
)
