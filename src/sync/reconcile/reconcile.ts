import { Clock, Effect } from "effect"
import { StoreClient } from "../../store-client/client.js"
import { LiveRows, type Stamp } from "../../warehouse/live-rows.js"
import { Progress } from "../context.js"
import { logOutcome } from "../outcome.js"
import { capped, compare } from "./compare.js"
import { listAll, listWindows } from "./listing.js"
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

/** Live rows of the warehouse read at a time: a window's (about 10,000) in one statement. */
const HELD_CHUNK = 10_000

/** Ids in (after, through]; ±Infinity: no bound. */
export interface IdRange {
  readonly after: number
  readonly through: number
}

/** The warehouse's live rows of the resource with ids in `range`, read in id order a chunk at a time. */
export const heldRows = (spec: ResourceSpec, range: IdRange, chunk = HELD_CHUNK) =>
  Effect.gen(function*() {
    const live = yield* LiveRows
    const held = new StampTable()
    for (let after = range.after; ;) {
      const rows: ReadonlyArray<Stamp> = yield* live.stampsBetween(spec.table, after, range.through, chunk)
      for (const row of rows) held.add(row)
      if (rows.length < chunk) return held
      after = rows[rows.length - 1]!.id
    }
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

/** What a resource's windows add up to: the differing ids, the listed rows of the missing and stale ones, the rows listed. */
interface Found {
  readonly missing: number[]
  readonly stale: number[]
  readonly gone: number[]
  readonly toLoad: StampTable
  listed: number
}

/**
 * Compares the store's listings with the warehouse one window of ids at a time, holding one window of each side
 * (and the smaller listings whole: the trash), not the store's rows: both sides held whole cost 34 bytes a row, twice
 * that while a table grew. The other listings are read first; the main one (`any`) then, window by window, and a
 * row both list (trashed or restored meanwhile) keeps the main one's copy, read last.
 */
const compareWindows = (spec: ResourceSpec, upper: number) =>
  Effect.gen(function*() {
    const [main, ...others] = spec.listings
    const rest = new StampTable()
    for (const listing of others) yield* listAll(listing, rest)
    const found: Found = { missing: [], stale: [], gone: [], toLoad: new StampTable(), listed: 0 }
    const progress = yield* Progress
    yield* listWindows(main!, (window) =>
      Effect.gen(function*() {
        const listed = rest.between(window.after, window.through)
        for (const row of window.rows.values()) listed.add(row)
        const differ = yield* differences(spec, listed, yield* heldRows(spec, window), upper)
        for (const [into, ids] of [[found.missing, differ.missing], [found.stale, differ.stale], [found.gone, differ.gone]] as const) {
          for (const id of ids) into.push(id)
        }
        for (const id of [...differ.missing, ...differ.stale]) found.toLoad.add(listed.get(id)!)
        found.listed += listed.size
        yield* progress.page(spec.name, listed.size, window.total + rest.size)
      })).pipe(Effect.ensuring(progress.done(spec.name)))
    return found
  })

/** The warehouse's live rows among `ids`, read a chunk at a time. */
const heldAmong = (spec: ResourceSpec, ids: ReadonlyArray<number>) =>
  Effect.gen(function*() {
    const live = yield* LiveRows
    const held = new StampTable()
    for (let i = 0; i < ids.length; i += HELD_CHUNK) {
      for (const row of yield* live.stampsOf(spec.table, ids.slice(i, i + HELD_CHUNK))) held.add(row)
    }
    return held
  })

/**
 * Repairs what differs: missing and stale rows read again by id and loaded as a sync loads them, gone rows marked
 * deleted. Returns how many of the differing rows no longer differ, by the warehouse read again (a document the
 * Loader refuses, or one the warehouse holds newer, stays as it was and is not counted).
 */
const repair = (spec: ResourceSpec, found: Found) =>
  Effect.gen(function*() {
    const live = yield* LiveRows
    if (found.toLoad.size > 0) yield* reload(spec, [...found.toLoad.values()])
    if (found.gone.length > 0) yield* live.markDeleted(spec.table, found.gone)
    const held = yield* heldAmong(spec, [...found.missing, ...found.stale, ...found.gone])
    const same = (id: number) => {
      const [now, listed] = [held.get(id), found.toLoad.get(id)!]
      return now !== undefined && (!spec.dates || (now.at === listed.at && now.trash === listed.trash))
    }
    return [...found.missing, ...found.stale].filter(same).length + found.gone.filter((id) => !held.has(id)).length
  })

/** Lists, compares and (when asked) repairs one resource. */
const reconcileResource = Effect.fn("reconcile.resource")(function*(spec: ResourceSpec, request: PassRequest) {
  const store = yield* StoreClient
  const t0 = yield* Clock.currentTimeMillis
  const requests0 = yield* store.requestCount
  const found = yield* compareWindows(spec, request.upper)
  const { missing, stale, gone, listed } = found
  const repaired = request.repair && driftCount(found) > 0 ? yield* repair(spec, found) : 0
  const report: ResourceReport = {
    resource: spec.name,
    listed,
    missing,
    stale,
    gone,
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
