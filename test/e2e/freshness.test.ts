// analytics.freshness: what a dashboard's "data as of" and dbt's source freshness read, per store and stream, by
// the read-only role that may not read sync.* itself.
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { manualClock } from "../../src/simulator/store/index.js"
import { CATALOGUE, STREAMS } from "../../src/sync/catalogue.js"
import { grantLogin } from "../../src/warehouse/reader-role.js"
import { fetchAll } from "../support/api.js"
import { sqlRows } from "../support/database.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { ms } from "../support/scenarios.js"

interface Freshness {
  stream: string
  last_success_at: string
  state_success_at: string
  last_success_run: string | null
  cursor_at: string | null
  refresh_hours: number
  current_within: string
  is_current: boolean
}

describe("analytics.freshness", () => {
  const login = `fresh_${randomBytes(4).toString("hex")}`
  const password = randomBytes(12).toString("hex")
  const clock = manualClock(ms("2026-09-01T00:00:00Z"))
  let h: Harness
  let runId: string
  beforeAll(async () => {
    h = await makeHarness({ clock, data: { seed: 41, orders: 80, start: "2026-07-01", days: 40 } })
    await h.sync({ streams: STREAMS })
    runId = (await h.rows<{ id: string }>("SELECT max(id)::text AS id FROM sync.runs"))[0]!.id
  })
  afterAll(async () => {
    await h?.close()
    await sqlRows(inject("pgAdminUrl"), `DROP ROLE IF EXISTS ${login}`)
  })

  const freshness = () =>
    h.rows<Freshness>(
      `SELECT f.stream, f.last_success_at::text, s.last_success_at::text AS state_success_at, f.last_success_run::text,
              f.cursor_at::text, f.refresh_hours, f.current_within::text, f.is_current
       FROM analytics.freshness f JOIN sync.state s USING (store_id, stream) WHERE f.store_id = $1 ORDER BY f.stream`, [STORE_ID])

  it("has a row per stream the run took: its last success, the run, its refresh period and current", async () => {
    const rows = await freshness()
    expect(rows.map((r) => r.stream)).toEqual([...STREAMS].sort())
    for (const r of rows) {
      expect({ stream: r.stream, success: r.last_success_at, run: r.last_success_run, refresh: r.refresh_hours, current: r.is_current })
        .toEqual({ stream: r.stream, success: r.state_success_at, run: runId, refresh: CATALOGUE[r.stream as keyof typeof CATALOGUE].every, current: true })
    }
  })

  it("shows the orders cursor: at or after the store's latest change before its clock, not after the clock", async () => {
    const orders = [...await fetchAll(h.sim.url, "/orders", { status: "any" }), ...await fetchAll(h.sim.url, "/orders", { status: "trash" })]
    // The generated data has changes dated after the clock: the run reads up to the clock only.
    const latest = Math.max(...orders.map((o) => Date.parse(`${o.date_modified_gmt}Z`)).filter((t) => t <= clock.now()))
    const [row] = await h.rows<{ cursor: number }>(
      "SELECT extract(epoch FROM cursor_at)::bigint * 1000 AS cursor FROM analytics.freshness WHERE store_id = $1 AND stream = 'orders'", [STORE_ID])
    expect(Number(row!.cursor)).toBeGreaterThanOrEqual(latest)
    expect(Number(row!.cursor)).toBeLessThanOrEqual(clock.now())
  })

  it("is current within 24 hours for a store shopsync does not schedule, twice a daily stream's period, twice a registered store's interval", async () => {
    const setAge = (stream: string, age: string) =>
      h.rows("UPDATE sync.state SET last_success_at = now() - $3::interval WHERE store_id = $1 AND stream = $2", [STORE_ID, stream, age])
    const current = async (stream: string) =>
      (await h.rows<{ is_current: boolean; current_within: string }>(
        "SELECT is_current, current_within::text FROM analytics.freshness WHERE store_id = $1 AND stream = $2", [STORE_ID, stream]))[0]!
    await setAge("orders", "23 hours")
    await setAge("settings", "25 hours")
    expect(await current("orders")).toEqual({ is_current: true, current_within: "24:00:00" })
    expect(await current("settings")).toEqual({ is_current: true, current_within: "48:00:00" })
    await setAge("orders", "25 hours")
    await setAge("settings", "49 hours")
    expect((await current("orders")).is_current).toBe(false)
    expect((await current("settings")).is_current).toBe(false)

    await h.rows(`INSERT INTO sync.store_registry (store_id, api_url, consumer_key, consumer_secret, every)
                  VALUES ($1, $2, 'ck_demo', '\\x00'::bytea, '5 minutes')`, [STORE_ID, h.sim.url])
    await setAge("orders", "9 minutes")
    expect(await current("orders")).toEqual({ is_current: true, current_within: "00:10:00" })
    await setAge("orders", "11 minutes")
    expect((await current("orders")).is_current).toBe(false)
    // A stream refreshed daily stays current for its own period, however often the store runs.
    await setAge("settings", "47 hours")
    expect(await current("settings")).toEqual({ is_current: true, current_within: "48:00:00" })
  })

  it("is readable by a login of shopsync_reader, which still may not read sync.*", async () => {
    await h.run(grantLogin(login, password))
    const url = new URL(h.dbUrl)
    url.username = login
    url.password = password
    const reader = url.toString()
    const rows = await sqlRows<{ stream: string }>(reader, "SELECT stream FROM analytics.freshness WHERE store_id = $1 ORDER BY stream", [STORE_ID])
    expect(rows.map((r) => r.stream)).toEqual([...STREAMS].sort())
    for (const table of ["sync.state", "sync.runs", "sync.store_registry"]) {
      await expect(sqlRows(reader, `SELECT 1 FROM ${table} LIMIT 1`)).rejects.toMatchObject({ code: "42501" })
    }
  })
})
