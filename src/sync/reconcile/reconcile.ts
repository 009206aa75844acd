import { Clock, Effect } from "effect"
import { StoreClient } from "../../store-client/client.js"
import { LiveRows, type Stamp } from "../../warehouse/live-rows.js"
import { logOutcome } from "../outcome.js"
import { capped, compare, type Differences } from "./compare.js"
import { listAll } from "./listing.js"
import { Reconciliations, type ResourceReport } from "./record.js"
import { confirmGone, reload } from "./repair.js"
import { type ResourceName, type ResourceSpec, SPECS } from "./resources.js"
import { StampTable } from "./stamp-table.js"

/** What a pass is asked to do. */
export interface PassRequest {
  readonly resources: ReadonlyArray<ResourceName>
  readonly repair: boolean
  /** Exclusive upper bound (epoch second of the store's clock): rows dated later belong to the next sync. */
  readonly upper: number
  /** The run (sync.runs) the pass belongs to. */
  readonly runId: number
}

/** What a pass found, per resource. */
export interface PassReport {
  readonly runId: number
  readonly repair: boolean
  readonly resources: ReadonlyArray<ResourceReport>
}

/** Rows that differ, whatever the way. */
export const driftCount = (r: Pick<ResourceReport, "missing" | "stale" | "gone">) => r.missing.length + r.stale.length + r.gone.length

/** Live rows of the warehouse read at a time: the table of them grows by 17 bytes a row, not by a query's result. */
const HELD_CHUNK = 10_000

/** The warehouse's live rows of the resource, read in id order a chunk at a time. */
export const heldRows = (spec: ResourceSpec, chunk = HELD_CHUNK) =>
  Effect.gen(function*() {
    const live = yield* LiveRows
    const held = new StampTable()
    for (let after = -1; ;) {
      const rows: ReadonlyArray<Stamp> = yield* live.stampsAfter(spec.table, after, chunk)
      for (const row of rows) held.add(row)
      if (rows.length < chunk) return held
      after = rows[rows.length - 1]!.id
    }
  })

/** Every row of every listing of the resource, in one table; a row trashed while they are read keeps the listing read last. */
const listStore = (spec: ResourceSpec) =>
  Effect.gen(function*() {
    const rows = new StampTable()
    for (const listing of spec.listings) yield* listAll(listing, rows)
    return rows
  })

/** The differences once the rows no listing had are each confirmed by their own GET (those still there join the listing). */
const differences = (spec: ResourceSpec, listed: StampTable, held: StampTable, upper: number) =>
  Effect.gen(function*() {
    const found = compare(listed, held, upper, spec.dates)
    if (!spec.confirmGone || found.gone.length === 0) return found
    const { still } = yield* confirmGone(spec, found.gone)
    for (const row of still) listed.add(row)
    return compare(listed, held, upper, spec.dates)
  })

/**
 * Repairs what differs: missing and stale rows read again by id and loaded as a sync loads them, gone rows marked
 * deleted. Returns how many of the differing rows no longer differ, by the warehouse read again (a document the
 * Loader refuses, or one the warehouse holds newer, stays as it was and is not counted).
 */
const repair = (spec: ResourceSpec, found: Differences, listed: StampTable, upper: number) =>
  Effect.gen(function*() {
    const live = yield* LiveRows
    const toLoad = [...found.missing, ...found.stale].map((id) => listed.get(id)!)
    if (toLoad.length > 0) yield* reload(spec, toLoad)
    if (found.gone.length > 0) yield* live.markDeleted(spec.table, found.gone)
    const after = compare(listed, yield* heldRows(spec), upper, spec.dates)
    const left = new Set([...after.missing, ...after.stale, ...after.gone])
    return [...found.missing, ...found.stale, ...found.gone].filter((id) => !left.has(id)).length
  })

/** Lists, compares and (when asked) repairs one resource. */
const reconcileResource = Effect.fn("reconcile.resource")(function*(spec: ResourceSpec, request: PassRequest) {
  const store = yield* StoreClient
  const t0 = yield* Clock.currentTimeMillis
  const requests0 = yield* store.requestCount
  const listed = yield* listStore(spec)
  const held = yield* heldRows(spec)
  const found = yield* differences(spec, listed, held, request.upper)
  const drift = driftCount(found) > 0
  const repaired = request.repair && drift ? yield* repair(spec, found, listed, request.upper) : 0
  const report: ResourceReport = {
    resource: spec.name,
    listed: listed.size,
    ...found,
    repaired,
    requests: (yield* store.requestCount) - requests0,
    seconds: ((yield* Clock.currentTimeMillis) - t0) / 1000
  }
  return report
})

/** A resource's outcome as one log line: a warning with the ids (the first 100 of each kind) when it drifted. */
const logReport = (r: ResourceReport, repairing: boolean) => {
  const n = driftCount(r)
  const fields = {
    resource: r.resource, outcome: n > 0 ? "drift" : "clean", listed: r.listed,
    missing: capped(r.missing), stale: capped(r.stale), gone: capped(r.gone), repaired: r.repaired, requests: r.requests, seconds: r.seconds
  }
  if (n === 0) return logOutcome("info", `${r.resource}: no drift, ${r.listed} rows listed (${r.requests} requests in ${r.seconds.toFixed(1)} s)`, fields)
  const what = `${r.missing.length} missing, ${r.stale.length} stale, ${r.gone.length} gone`
  return logOutcome("warning", `${r.resource}: drift, ${what}; ${repairing ? `${r.repaired} repaired` : "not repaired (--repair repairs it)"}`, fields)
}

/**
 * One reconciliation pass: for each resource, every id and date the store lists compared with the warehouse's
 * live rows in both directions, repaired when asked, recorded in sync.reconciliations and logged. The caller
 * holds the store's run lock (so no sync writes meanwhile) and stores the daily sums after it.
 */
export const reconcile = Effect.fn("reconcile")(function*(request: PassRequest) {
  const records = yield* Reconciliations
  const startedAt = yield* Clock.currentTimeMillis
  const reports: ResourceReport[] = []
  for (const name of request.resources) {
    const report = yield* reconcileResource(SPECS[name], request)
    yield* records.record({ runId: request.runId, startedAt, upper: request.upper, repair: request.repair }, report)
    yield* logReport(report, request.repair)
    reports.push(report)
  }
  return { runId: request.runId, repair: request.repair, resources: reports } satisfies PassReport
})
