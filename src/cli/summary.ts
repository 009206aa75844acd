import { Effect, Option } from "effect"
import { type ContactsReport, type SyncReport, verdict } from "../jobs/store-jobs.js"
import { enqueuedText, logPushOutcome, type Pushed, pushText, summaryText } from "../jobs/report.js"
import type { RunSummary } from "../sync/engine.js"

const out = (text: string) => Effect.sync(() => process.stdout.write(text))

/** The run's result as a table on stdout (its log line is written where the run is recorded: sync/runs.ts). */
export const printSummary = (summary: RunSummary) => out(summaryText(summary))

/** A push's figures on stdout, then its outcome line; a push that gave up fails afterwards. */
export const reportPush = (p: Pushed) =>
  out(pushText(p.result)).pipe(Effect.zipRight(logPushOutcome(p)), Effect.zipRight(p.gaveUp === undefined ? Effect.void : Effect.fail(p.gaveUp)))

/** What followed `shopsync sync`'s run: without the marketing variables the push is skipped, said once. */
const printContacts = <E>(contacts: ContactsReport<E>, noPush: boolean) => {
  switch (contacts._tag) {
    case "NotConfigured":
      return noPush ? Effect.void : Effect.logInfo("marketing push skipped: MARKETING_BASE_URL, MARKETING_CLIENT_ID and MARKETING_CLIENT_SECRET are not set")
    case "Enqueued":
      return out(enqueuedText(contacts.queued))
    case "Pushed":
      return Effect.zipRight(out(pushText(contacts.pushed.result)), logPushOutcome(contacts.pushed))
    default:
      return Effect.void
  }
}

/** Fails with the report's failure (the exit code follows from its type), once the report is printed. */
const failWithVerdict = <E>(report: SyncReport<E>) => Option.match(verdict(report), { onNone: () => Effect.void, onSome: Effect.fail })

/**
 * `shopsync sync`/`backfill`: the run's table, then what became of the contacts; then the report's failure (a stream
 * that failed stopped neither the others nor the push: exit 2 afterwards).
 */
export const printSyncReport = <E>(report: SyncReport<E>, noPush = false) =>
  Effect.zipRight(
    report._tag === "Locked" ? Effect.void : Effect.zipRight(printSummary(report.summary), printContacts(report.contacts, noPush)),
    failWithVerdict(report)
  )

/**
 * `stores sync`/`backfill` run here: the push's figures (its outcome line is logged where the registry records the
 * job), then the run's table, which a push that failed has always left out.
 */
export const printRegisteredReport = <E>(report: SyncReport<E>) =>
  Effect.gen(function*() {
    if (report._tag === "Ran") {
      const c = report.contacts
      if (c._tag === "Pushed") yield* out(pushText(c.pushed.result))
      if (c._tag !== "PushFailed" && !(c._tag === "Pushed" && c.pushed.gaveUp !== undefined)) yield* printSummary(report.summary)
    }
    return yield* failWithVerdict(report)
  })
