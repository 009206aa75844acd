import { Effect } from "effect"
import type { RunContext } from "../context.js"
import { errorText } from "../errors.js"
import { SyncState } from "../state.js"
import { type PassReport, reconcile } from "./reconcile.js"
import { RESOURCES } from "./resources.js"

/** Where sync.state keeps the time of the last complete pass (`details.lastFullPass`, like the full passes). */
export const RECONCILIATION = "reconciliation"

/**
 * The scheduled pass of a sync, when due: every SHOPSYNC_VERIFY_HOURS (0: every run), always repairing. The first
 * sync only starts the clock: it has just loaded everything, and a pass would list the whole store a second time.
 * A failed pass is a warning, not a failed run (the sales streams did load), and the next sync tries again.
 */
export const reconcileIfDue = (ctx: RunContext, hours: number | undefined) =>
  Effect.gen(function*() {
    if (hours === undefined || ctx.mode.kind === "backfill") return undefined
    const state = yield* SyncState
    const { details } = yield* state.read(RECONCILIATION)
    if (hours > 0 && details["lastFullPass"] === undefined) return yield* Effect.as(state.fullPassDone(RECONCILIATION, ctx.upper), undefined)
    if (!(yield* state.fullPassDue(RECONCILIATION, hours, ctx.upper))) return undefined
    const report: PassReport | undefined = yield* reconcile({ resources: RESOURCES, repair: true, upper: ctx.upper, runId: ctx.runId }).pipe(
      Effect.tap(() => state.fullPassDone(RECONCILIATION, ctx.upper)),
      Effect.catchAll((e) => Effect.as(Effect.logWarning(`reconciliation failed, tried again by the next sync: ${errorText(e)}`), undefined))
    )
    return report
  })
