import type { OutboxCounts, OutboxProblem } from "../contacts/outbox.js"
import type { LastReconciliation } from "../sync/reconcile/record.js"
import type { KnownStore, RecentRun } from "../sync/runs.js"
import type { StreamStatus } from "../sync/stream-status.js"
import type { HeldRow } from "../warehouse/quarantine.js"
import { formatTable } from "../jobs/table.js"

/** What `status` knows of one store, as the text and the JSON show it. */
export interface StatusFacts {
  readonly store: string
  readonly streams: ReadonlyArray<StreamStatus & { readonly strategy: string }>
  readonly runs: ReadonlyArray<RecentRun>
  readonly otherStores: ReadonlyArray<KnownStore>
  readonly quarantine: { readonly documents: ReadonlyArray<HeldRow>; readonly cleaned: ReadonlyArray<{ stream: string; documents: number }> }
  readonly outbox: { readonly counts: OutboxCounts; readonly problems: ReadonlyArray<OutboxProblem> }
  /** The last reconciliation (verify, or a sync's scheduled one), if any. */
  readonly reconciliation: LastReconciliation | undefined
}

/** The last reconciliation in one line: when, and what drift it found and repaired. */
export const reconciliationText = (r: LastReconciliation | undefined): string => {
  if (r === undefined) return "last reconciliation: none yet (`shopsync verify`; a sync runs one every SHOPSYNC_VERIFY_HOURS)"
  const drifted = r.resources.filter((x) => x.missing + x.stale + x.gone > 0)
  const when = `last reconciliation: run ${r.run}, ${r.finished} UTC (${r.resources.map((x) => x.resource).join(", ")})`
  if (drifted.length === 0) return `${when}: no drift`
  const found = drifted.map((x) => `${x.resource} ${x.missing} missing, ${x.stale} stale, ${x.gone} gone`).join("; ")
  const repaired = drifted.reduce((n, x) => n + x.repaired, 0)
  return `${when}: drift found: ${found}; ${r.repair ? `${repaired} repaired` : "not repaired"}`
}

/** A terminal's width a newcomer can count on. */
const WIDTH = 100

const clip = (text: string, width = WIDTH) => (text.length > width ? `${text.slice(0, width - 1)}…` : text)

/** A table whose `flex` column is cut so that every line fits WIDTH. */
const fitTable = (rows: ReadonlyArray<Record<string, unknown>>, columns: ReadonlyArray<string>, flex: string) => {
  const width = (c: string) => Math.max(c.length, ...rows.map((r) => String(r[c] ?? "").length))
  const others = columns.filter((c) => c !== flex).reduce((n, c) => n + width(c) + 2, 0)
  const room = Math.max(flex.length, WIDTH - others)
  return formatTable(rows.map((r) => ({ ...r, [flex]: clip(String(r[flex] ?? ""), room) })), columns)
}

/** "2026-09-01 12:00:05" → "09-01 12:00" (the year and seconds are in --wide and --json). */
const short = (at: string | null) => (at === null ? "" : at.slice(5, 16))

/** A cursor's first part stays in the table; what follows (slices pending, the last full pass) goes to the notes. */
const cursorHead = (cursor: string) => cursor.split(/ \(|; /)[0]!

/** How the stream's last run went; "unfinished" when it started after its last success (running, or stopped). */
const result = (s: StreamStatus) =>
  s.last_error.startsWith("unavailable")
    ? "unavailable"
    : s.last_error !== ""
    ? "failed"
    : s.last_started !== null && (s.last_success === null || s.last_started > s.last_success)
    ? "unfinished"
    : s.last_success !== null
    ? "ok"
    : ""

const streamsText = (streams: StatusFacts["streams"]) => {
  const rows = streams.map((s) => ({
    stream: s.stream,
    cursor: cursorHead(s.cursor),
    rows: s.rows,
    written: s.last_rows ?? "",
    "last run": short(s.last_started),
    result: result(s)
  }))
  const notes = streams.flatMap((s) => [
    ...(cursorHead(s.cursor) !== s.cursor ? [clip(`  ${s.stream}: ${s.cursor}`)] : []),
    ...(s.last_error !== ""
      ? [clip(`  ${s.stream}: ${s.last_error}${s.last_success ? ` (last success ${short(s.last_success)})` : ""}`)]
      : [])
  ])
  return [
    fitTable(rows, ["stream", "cursor", "rows", "written", "last run", "result"], "cursor"),
    "rows: held in the warehouse (products: with their variations); written: by the stream's last run",
    ...(notes.length > 0 ? ["", "notes", ...notes] : [])
  ].join("\n")
}

/** No state for the configured store: say which stores the warehouse holds, and how to pick one. */
const noState = (facts: StatusFacts) => {
  const others = facts.otherStores.filter((s) => s.store !== facts.store)
  if (others.length === 0) return "no stream has run yet: run `shopsync sync`"
  const list = others.slice(0, 5).map((s) => `${s.store} (last run ${s.last_started} UTC)`).join(", ")
  return [
    `no stream of store ${facts.store} has run yet: run \`shopsync sync\`, or look at another store.`,
    clip(`The warehouse holds runs of: ${list}.`),
    `Select one with STORE_ID, e.g. STORE_ID=${others[0]!.store} shopsync status`
  ].join("\n")
}

const runsText = (runs: ReadonlyArray<RecentRun>) => {
  const errors = runs.filter((r) => r.error !== "").map((r) => clip(`  run ${r.run}: ${r.error}`))
  return [
    "recent runs (UTC)",
    formatTable(runs, ["run", "command", "outcome", "started", "seconds", "rows", "requests"]),
    ...errors
  ].join("\n")
}

/** The default `status`: every line within 100 columns, long texts cut (whole in --wide and --json). */
export const statusText = (facts: StatusFacts): string => {
  const { documents, cleaned } = facts.quarantine
  const { counts, problems } = facts.outbox
  return [
    `store ${facts.store} (STORE_ID); times are UTC`,
    facts.streams.length === 0 ? noState(facts) : streamsText(facts.streams),
    ...(facts.runs.length > 0 ? [runsText(facts.runs)] : []),
    clip(reconciliationText(facts.reconciliation)),
    ...(documents.length > 0
      ? [`quarantined documents: ${documents.length}\n${fitTable(documents, ["stream", "id", "kind", "attempts", "first_seen", "reason"], "reason")}`]
      : []),
    ...(cleaned.length > 0 ? [`documents stored without their NUL characters\n${formatTable(cleaned, ["stream", "documents"])}`] : []),
    `marketing outbox\n${formatTable([counts], ["pending", "sent", "failed", "quarantined", "oldest_pending_age"])}`,
    ...(problems.length > 0
      ? [`quarantined and failed contacts\n${fitTable(problems, ["status", "contacts", "reason", "examples"], "examples")}`]
      : [])
  ].join("\n\n")
}

/** `status --wide`: every column, texts whole (wider than a terminal). */
export const statusWide = (facts: StatusFacts): string =>
  [
    `store ${facts.store} (STORE_ID); times are UTC`,
    facts.streams.length === 0
      ? noState(facts)
      : formatTable(facts.streams, ["stream", "cursor", "rows", "last_rows", "last_started", "last_success", "last_error", "strategy"]),
    ...(facts.runs.length > 0 ? [`recent runs\n${formatTable(facts.runs, ["run", "command", "outcome", "started", "seconds", "rows", "requests", "error"])}`] : []),
    reconciliationText(facts.reconciliation),
    ...(facts.quarantine.documents.length > 0
      ? [`quarantined documents: ${facts.quarantine.documents.length}\n${formatTable(facts.quarantine.documents, ["stream", "id", "kind", "reason", "attempts", "first_seen"])}`]
      : []),
    ...(facts.quarantine.cleaned.length > 0 ? [`documents stored without their NUL characters\n${formatTable(facts.quarantine.cleaned, ["stream", "documents"])}`] : []),
    `marketing outbox\n${formatTable([facts.outbox.counts], ["pending", "sent", "failed", "quarantined", "oldest_pending_age"])}`,
    ...(facts.outbox.problems.length > 0
      ? [`quarantined and failed contacts\n${formatTable(facts.outbox.problems, ["status", "reason", "contacts", "examples"])}`]
      : [])
  ].join("\n\n")
