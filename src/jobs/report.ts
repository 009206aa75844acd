import { Data, Effect } from "effect"
import type { EnqueueResult, PushResult } from "../contacts/push.js"
import type { RunSummary } from "../sync/engine.js"
import { streamOutcome } from "../sync/errors.js"
import { logOutcome } from "../sync/outcome.js"
import { formatTable } from "./table.js"

const NOTES = { done: "", failed: "failed", unavailable: "unavailable on this store", "not due": "not due", skipped: "left to another run" } as const

/** The run's table and its figures' line: what `shopsync sync` prints, and what a worker sends to the sender of a sync. */
export const summaryText = (summary: RunSummary): string => {
  const rows = summary.streams.map((s) => ({
    stream: s.stream,
    rows: s.rows,
    deleted: s.deleted,
    seconds: s.seconds.toFixed(1),
    note: NOTES[streamOutcome(s)]
  }))
  const notes = rows.some((r) => r.note !== "")
  const total = summary.streams.reduce((n, s) => n + s.rows, 0)
  return `${formatTable(rows, ["stream", "rows", "deleted", "seconds", ...(notes ? ["note"] : [])])}\n` +
    `run ${summary.runId}: ${total} rows, ${summary.requests} requests in ${summary.seconds.toFixed(1)} s\n`
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : word.endsWith("ch") ? "es" : "s"}`

/** A push's figures, as `shopsync push` prints them. */
export const pushText = (result: PushResult): string => {
  if (result.skipped) return "marketing push: another push of this store is running; nothing done\n"
  const o = result.outbox
  return `marketing push: ${plural(result.derived, "contact")} derived; ${result.created} created, ${result.updated} updated, ` +
    `${result.unchanged} unchanged, ${result.failed} failed, ${result.quarantined} quarantined\n` +
    `  ${plural(result.batches, "batch")}, ${plural(result.requests, "request")}, ${plural(result.tokenRequests, "token request")}; ` +
    `outbox: ${o.pending} pending, ${o.sent} sent, ${o.failed} failed, ${o.quarantined} quarantined\n`
}

/** What `sync --no-push` prints: the contacts it enqueued for a later `shopsync push`. */
export const enqueuedText = (queued: EnqueueResult): string =>
  `marketing: ${queued.enqueued} contact(s) enqueued, ${queued.quarantined} quarantined; \`shopsync push\` sends them\n`

/** A push that stopped early on a service that stayed unavailable: what is unsent stays pending. */
export class PushGaveUp extends Data.TaggedError("PushGaveUp")<{ readonly reason: string; readonly pending: number }> {
  override get message() {
    return `marketing push gave up (${this.reason}); ${this.pending} contact(s) stay pending for the next run`
  }
}

/** A push that ran; `gaveUp` is set when it stopped early (the instance its outcome line reports, so it is logged once). */
export interface Pushed {
  readonly result: PushResult
  readonly gaveUp: PushGaveUp | undefined
}

export const pushed = (result: PushResult): Pushed => ({
  result,
  gaveUp: result.gaveUp === undefined ? undefined : new PushGaveUp({ reason: result.gaveUp, pending: result.outbox.pending })
})

/**
 * The push's outcome as one log line (`outcome` succeeded, partial_failure when the service refused contacts,
 * failed when it gave up, skipped_locked; `sent`, `failed`, `quarantined`, `pending`). Every host logs it; only the
 * CLI also prints pushText. A push that gave up is failed by its host afterwards, with `gaveUp`.
 */
export const logPushOutcome = ({ result, gaveUp }: Pushed) =>
  Effect.gen(function*() {
    const o = result.outbox
    const fields = {
      command: "push", sent: result.created + result.updated, failed: result.failed, quarantined: result.quarantined, pending: o.pending
    }
    if (result.skipped) {
      const message = "marketing push skipped: another push of this store is running; nothing done"
      return yield* logOutcome("warning", message, { ...fields, outcome: "skipped_locked" })
    }
    const figures = `${fields.sent} sent, ${result.failed} refused, ${result.quarantined} quarantined, ${o.pending} pending`
    // Nothing sent, refused, quarantined or left: a worker's every sync of a store whose contacts did not change.
    const idle = fields.sent + result.failed + result.quarantined + o.pending === 0
    if (gaveUp !== undefined) {
      return yield* logOutcome("error", `${gaveUp.message} (${figures})`, { ...fields, outcome: "failed", error: gaveUp.message }, gaveUp)
    }
    yield* result.failed > 0
      ? logOutcome("error", `marketing push: the service refused ${plural(result.failed, "contact")} (${figures}); \`status\` says why`, {
        ...fields, outcome: "partial_failure"
      })
      : logOutcome(idle ? "routine" : "info", `marketing push succeeded: ${figures}`, { ...fields, outcome: "succeeded" })
  })

/** Logs the push's outcome, then fails when it gave up: a push job's end on a host that does not print. */
export const settlePush = (p: Pushed) => Effect.zipRight(logPushOutcome(p), p.gaveUp === undefined ? Effect.void : Effect.fail(p.gaveUp))
