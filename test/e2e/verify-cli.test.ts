import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock, startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import { runCli } from "../support/cli.js"
import { freshDatabase, sqlRows } from "../support/database.js"

const jsonLines = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as { logLevel: string; message: string; annotations: Record<string, unknown> })

describe("shopsync verify on the command line", () => {
  let sim: StoreSimulator
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let env: Record<string, string>
  beforeAll(async () => {
    sim = await startStoreSimulator({ clock: manualClock(Date.parse("2026-09-01T00:00:00Z")), data: { seed: 5, orders: 200, start: "2026-06-01", days: 30 } })
    db = await freshDatabase()
    env = { DATABASE_URL: db.url, STORE_API_URL: sim.url, STORE_CONSUMER_KEY: "ck_demo", STORE_CONSUMER_SECRET: "cs_demo", STORE_ID: "vcli", STORE_SETTLE_SECONDS: "0" }
    expect((await runCli(["sync", "--no-push", "--streams", "orders,refunds,products,customers"], env)).code).toBe(0)
  })
  afterAll(async () => {
    await sim.close()
    await db.drop()
  })

  it("explains itself with --help; a resource it does not know is a usage error (64)", async () => {
    const help = await runCli(["verify", "--help"])
    expect(help.code).toBe(0)
    for (const text of ["--repair", "--resources", "SHOPSYNC_VERIFY_HOURS", "2 drift found"]) expect(help.stdout).toContain(text)
    const wrong = await runCli(["verify", "--resources", "orders,coupons"], env)
    expect(wrong.code).toBe(64)
    expect(wrong.stderr).toContain("coupons")
  })

  it("exits 0 without drift, printing a row per resource", async () => {
    const run = await runCli(["verify"], env)
    expect([run.code, run.stderr]).toEqual([0, expect.any(String)])
    for (const resource of ["orders", "refunds", "products", "customers"]) expect(run.stdout).toMatch(new RegExp(`${resource}\\s+\\d+\\s+0\\s+0\\s+0\\s+0`))
    const lines = jsonLines(run.stderr).filter((l) => l.annotations["resource"] !== undefined)
    expect(lines.map((l) => [l.annotations["resource"], l.annotations["outcome"], l.logLevel])).toEqual(
      ["orders", "refunds", "products", "customers"].map((r) => [r, "clean", "INFO"]))
  })

  it("exits 2 on drift: not repaired without --repair, repaired with it (a WARN line per drifted resource, with the ids)", async () => {
    const id = sim.state.orders.find((o) => o.status === "completed")!.id
    await sqlRows(db.url, "UPDATE store.orders SET date_modified = date_modified - interval '1 day', doc = doc - 'number' WHERE store_id = 'vcli' AND id = $1", [id])
    const found = await runCli(["verify", "--resources", "orders"], env)
    expect(found.code).toBe(2)
    expect(found.stderr).toContain("not repaired: run `shopsync verify --repair`")
    const warn = jsonLines(found.stderr).find((l) => l.annotations["resource"] === "orders")!
    expect([warn.logLevel, warn.annotations["outcome"], warn.annotations["stale"], warn.annotations["store"]]).toEqual(["WARN", "drift", [id], "vcli"])

    const repaired = await runCli(["verify", "--repair"], env)
    expect(repaired.code).toBe(2)
    expect(repaired.stderr).toContain("1 repaired")
    expect(repaired.stdout).toMatch(/orders\s+\d+\s+0\s+1\s+0\s+1/)
    expect(repaired.stdout).toContain(`orders: stale ${id}`)

    expect((await runCli(["verify"], env)).code).toBe(0)
  })

  it("status shows the last reconciliation; status --json includes it", async () => {
    const status = await runCli(["status"], env)
    expect(status.stdout).toMatch(/last reconciliation: run \d+, .* no drift/)
    const json = JSON.parse((await runCli(["status", "--json"], env)).stdout) as { reconciliation: { resources: Array<{ resource: string }> } }
    expect(json.reconciliation.resources.map((r) => r.resource)).toEqual(["orders", "refunds", "products", "customers"])
  })
})
