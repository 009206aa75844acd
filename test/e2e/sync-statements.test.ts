// What an incremental sync asks of the warehouse, counted from its trace: a worker runs one every few minutes for
// each of a thousand stores, so each statement a sync needs not is CPU spent a thousand times over. The streams'
// states are read in one statement, a one-statement write is its own transaction (it proves the lease itself), and
// the streams look into an empty quarantine with one statement between them.
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock } from "../../src/simulator/store/index.js"
import { STREAMS } from "../../src/sync/catalogue.js"
import { runSync } from "../../src/sync/engine.js"
import { tracerLayer } from "../../src/telemetry/otel-tracer.js"
import { call } from "../simulator/store/support.js"
import { type Harness, makeHarness, STORE_ID, syncRequest } from "../support/harness.js"

const plain = { streams: STREAMS, named: false, customersFullScanHours: 24, deletionsHours: 0 } as const

describe("the statements of an incremental sync", () => {
  const clock = manualClock(Date.parse("2026-07-01T12:00:00Z"))
  let h: Harness
  let statements: ReadonlyArray<string>
  let afterDirty: ReadonlyArray<string>
  const traced = () => {
    const exporter = new InMemorySpanExporter()
    return h.run(runSync(syncRequest(plain)).pipe(
      Effect.zipRight(Effect.sync(() =>
        exporter.getFinishedSpans().filter((s) => s.name === "sql.execute").map((s) => String(s.attributes["db.query.text"]).replace(/\s+/g, " ")))),
      Effect.provide(tracerLayer(exporter, false))
    ))
  }

  beforeAll(async () => {
    h = await makeHarness({ clock, data: { seed: 5, orders: 200, start: "2026-05-01", days: 40 } })
    await h.sync(plain)
    clock.advance(5 * 60_000)
    const [order] = h.sim.state.orders
    h.sim.state.updateOrder(order!.id, { customer_note: "changed since the last sync" })
    clock.advance(60_000)
    statements = await traced()
    // A day left without its sums (a run that stopped early, a webhook's write), then a run with nothing new.
    await h.rows("INSERT INTO analytics.daily_dirty (store_id, day) VALUES ($1, '2026-06-01')", [STORE_ID])
    clock.advance(60_000)
    afterDirty = await traced()
  }, 120_000)
  afterAll(() => h?.close())

  const count = (pattern: RegExp) => statements.filter((s) => pattern.test(s)).length

  it("reads the streams' states and standings in one statement", () => {
    expect(count(/FROM sync\.state WHERE store_id = \$1 AND stream = \$2$/)).toBe(0)
    expect(count(/^SELECT stream, .* FROM sync\.state WHERE store_id = \$1$/)).toBe(1)
    expect(count(/^SELECT stream, details FROM sync\.state/)).toBe(0)
  })

  it("writes the streams' outcomes as one statement a phase (sales, then the rest), proving the lease, outside any transaction of its own", async () => {
    const finished = statements.flatMap((s, i) => (/^ ?UPDATE sync\.state s SET last_rows/.test(s) ? [i] : []))
    expect(finished.length).toBe(2)
    for (const i of finished) {
      expect(statements[i]).toContain("sync.prove_lease")
      expect(statements[i - 1]).not.toBe("BEGIN")
    }
    // Every stream this run started has its outcome.
    const [run] = await h.rows<{ id: number }>("SELECT max(id)::int AS id FROM sync.runs")
    const states = await h.rows<{ stream: string; done: boolean }>(
      "SELECT stream, last_success_at >= last_started_at AND last_error IS NULL AS done FROM sync.state WHERE last_run_id = $1", [run!.id])
    expect(states.length).toBeGreaterThan(5)
    expect(states.filter((s) => !s.done)).toEqual([])
  })

  it("starts with one statement (its locks, their leases, its row) and ends with two (its outcome; its leases and locks given back), on the session that holds its locks", () => {
    const begin = statements.findIndex((s) => /FROM sync\.begin_run\(/.test(s))
    expect(begin).toBe(0)
    expect(count(/sync\.begin_run\(|sync\.claim_leases\(|pg_try_advisory_lock|INSERT INTO sync\.runs|UPDATE sync\.run_leases SET holder = \$/)).toBe(1)
    // The sales lock, once its phase is stored: its lease and advisory lock in one statement.
    expect(count(/^ ?WITH released AS \(UPDATE sync\.run_leases SET holder = NULL .* lock = \$\d AND holder = \$\d RETURNING 1\) SELECT pg_advisory_unlock\(/)).toBe(1)
    expect(statements.at(-2)).toMatch(/^UPDATE sync\.runs SET finished_at = now\(\)/)
    expect(statements.at(-1)).toMatch(/^ ?WITH released AS \(UPDATE sync\.run_leases SET holder = NULL WHERE store_id = \$1 AND holder = \$2 RETURNING 1\) SELECT pg_advisory_unlock_all\(\)/)
    expect(count(/pg_advisory_unlock|pg_advisory_lock|UPDATE sync\.run_leases/)).toBe(2)
    expect(count(/FOR UPDATE OF l/)).toBe(0)
  })

  it("stores the daily sums with one statement proving the lease after the streams, and before them only when days await theirs", () => {
    const refreshesOf = (run: ReadonlyArray<string>) => run.flatMap((s, i) => (s.includes("analytics.refresh_daily_totals(") ? [i] : []))
    const started = (run: ReadonlyArray<string>) => run.findIndex((s) => /^ ?INSERT INTO sync\.state AS s \(store_id, stream, last_run_id/.test(s))
    // The run that began with every day stored: once, after the sales streams started.
    expect(refreshesOf(statements)).toHaveLength(1)
    expect(refreshesOf(statements)[0]).toBeGreaterThan(started(statements))
    // The run that began with a day left: first that day, before any stream starts.
    const [first, last] = refreshesOf(afterDirty)
    expect(refreshesOf(afterDirty)).toHaveLength(2)
    expect(first).toBeLessThan(started(afterDirty))
    expect(last).toBeGreaterThan(started(afterDirty))
    for (const [run, i] of [[statements, refreshesOf(statements)[0]!], [afterDirty, first!], [afterDirty, last!]] as const) {
      expect(run[i]).toContain("sync.prove_lease")
      expect(run[i - 1]).not.toBe("BEGIN")
    }
  })

  it("starts each resource's deletion check with one statement, and counts no range when the listings' heads settle it", () => {
    const starts = statements.filter((s) => /^SELECT extract\(epoch FROM min\(.*\(count\(\*\) FILTER/.test(s))
    expect(starts.length).toBe(3)
    expect(count(/^SELECT count\(\*\)::integer AS n FROM "store"\./)).toBe(0)
  })

  it("stores the store's report for the changed days and marks them current in one statement proving the lease itself", () => {
    const report = statements.findIndex((s) => /INSERT INTO store\.sales_report_daily/.test(s))
    expect(report).toBeGreaterThan(0)
    expect(statements[report]).toMatch(/^ ?WITH proof AS \(SELECT \(SELECT sync\.prove_lease.* DELETE FROM sync\.report_days /)
    expect(statements[report - 1]).not.toMatch(/^SELECT \(SELECT sync\.prove_lease/)
    expect(count(/DELETE FROM sync\.report_days/)).toBe(1)
  })

  it("loads a page with one script that carries the lease's proof, and moves the stream's cursor with one statement", () => {
    const pages = statements.flatMap((s, i) => (s.includes("INSERT INTO sync_batch") ? [i] : []))
    expect(pages.length).toBeGreaterThan(0)
    // The proof first, outside the page's savepoint (a refused page rolls back to it, the proof stays), then the
    // staging and the merge: one round trip.
    for (const i of pages) {
      expect(statements[i]).toMatch(/^SELECT sync\.prove_lease\(.*; SAVEPOINT shopsync_page; .*INSERT INTO sync_batch .*INSERT INTO store\.\w+ .*; RELEASE SAVEPOINT shopsync_page$/)
      // Its span shows it without its values, as every statement's: no document, no store id.
      expect(statements[i]).not.toMatch(/"id":|\$q\d*\$/)
    }
    // The open slice's cursor, without reading the state row FOR UPDATE first (the streams run at once: the
    // statements of a page's transaction need not follow each other here).
    expect(count(/^ ?INSERT INTO sync\.state .* WHERE NOT \(s\.details \? 'slices'\) RETURNING/)).toBeGreaterThan(0)
    expect(count(/FOR UPDATE$/)).toBe(0)
  })

  it("reads no key of a resource for its children when the resource did not change, and finds their orphans in one statement", () => {
    // attribute_terms and shipping_zone_methods, whose parents (daily refreshes) were not due.
    expect(count(/sync\.scope_keys\(/)).toBe(0)
    expect(count(/sync\.retire_orphan_scopes\(/)).toBe(2)
    expect(count(/sync\.retire_orphans\(/)).toBe(0)
  })

  it("writes a batch of children (the changed order's notes) in one statement proving the lease itself: no temp table made, no proof alone", () => {
    expect(count(/^SELECT scope, key, change FROM sync\.write_scope_docs\(.*\) WHERE \(SELECT sync\.prove_lease/)).toBeGreaterThan(0)
    expect(count(/CREATE TEMP TABLE IF NOT EXISTS scope_batch|sync\.merge_scopes\(|sync\.upsert_scope_docs\(/)).toBe(0)
    expect(count(/^SELECT \(SELECT sync\.prove_lease/)).toBe(0)
  })

  it("reads the warehouse's clock for its children streams' marks once (order notes and customer downloads)", () => {
    expect(count(/^SELECT least\(clock_timestamp\(\), \(SELECT min\(xact_start\) FROM pg_stat_activity/)).toBe(1)
  })

  it("looks for the orphans of orders and customers among the children of those deleted since it last looked, not among every child", () => {
    // order_notes and customer_downloads: the first sync looked at every child; this run only behind the parents deleted since.
    expect(count(/sync\.retire_orphans_since\(/)).toBe(2)
    expect(count(/sync\.retire_orphans_of\(/)).toBe(0)
  })

  it("marks deleted the notes of an order the store deleted for good, in the next run between full passes", async () => {
    const gone = h.sim.state.orders.find((o) => o.status !== "trash" && h.sim.state.notes.of(o.id).length > 0)!
    const notesOf = () =>
      h.rows<{ live: number; held: number }>(
        "SELECT count(*) FILTER (WHERE deleted_at IS NULL)::int AS live, count(*)::int AS held FROM store.order_notes WHERE store_id = $1 AND scope = $2",
        [STORE_ID, String(gone.id)])
    const notes = h.sim.state.notes.of(gone.id).length
    expect(await notesOf()).toEqual([{ live: notes, held: notes }])
    const deleted = await call(h.sim, `/orders/${gone.id}?force=true`, { method: "DELETE" })
    expect(deleted.status).toBe(200)
    clock.advance(60_000)
    const run = await traced()
    expect(run.filter((s) => /sync\.retire_orphans_of\(/.test(s))).toEqual([])
    expect(await notesOf()).toEqual([{ live: 0, held: notes }])
  })

  it("looks into the quarantine once for every stream that loads documents when it holds nothing", () => {
    // orders, refunds, products and customers: what each held when it started, kept for its pages and its retry.
    expect(count(/FROM store\.quarantine WHERE store_id = \$1 ORDER BY stream/)).toBe(1)
    expect(count(/FROM store\.quarantine WHERE store_id = \$1 AND stream = \$2/)).toBe(0)
  })
})
