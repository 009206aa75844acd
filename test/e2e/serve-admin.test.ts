// `shopsync serve`'s two listeners: the webhook one (what the store, and so anyone, reaches) serves no page, no
// metrics and /healthz without its reasons; the admin one, here on 0.0.0.0, serves them to the bearer token only, and
// serve refuses to start there without one. A quarantined order whose reason quotes a customer's e-mail shows it masked.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { randomBytes } from "node:crypto"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import { runCli } from "../support/cli.js"
import { freshDatabase, sqlRows } from "../support/database.js"
import { type Serve, startServe } from "../support/serve.js"

const STORE = "admin-t"
const TOKEN = randomBytes(32).toString("hex")
const EMAIL = "alice.private@example.org"

describe("shopsync serve's admin listener", () => {
  let sim: StoreSimulator
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let serve: Serve
  let env: Record<string, string>
  let poisoned = 0
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

  beforeAll(async () => {
    sim = await startStoreSimulator({ data: { seed: 44, orders: 40, customers: 10, products: 6, start: "2026-05-01", days: 10 } })
    // Served as is: a customer id that is the guest's e-mail (as a plugin might write it) does not fit the order schema.
    const order = sim.state.orders.find((o) => o.status !== "trash")!
    ;(order as unknown as { customerId: unknown }).customerId = EMAIL
    poisoned = order.id
    db = await freshDatabase()
    env = { DATABASE_URL: db.url, STORE_API_URL: sim.url, STORE_CONSUMER_KEY: "ck_demo", STORE_CONSUMER_SECRET: "cs_demo", STORE_ID: STORE, STORE_WEBHOOK_SECRET: "whsec_admin", SHOPSYNC_SYNC_EVERY: "1h" }
    serve = await startServe({ ...env, SHOPSYNC_ADMIN_HOST: "0.0.0.0", SHOPSYNC_ADMIN_TOKEN: TOKEN })
    await serve.ready
  })
  afterAll(async () => {
    serve?.child.kill("SIGKILL")
    await sim?.close()
    await db?.drop()
  })

  it("refuses to start off loopback without a token, or with an unreadable token file, naming the setting", async () => {
    const open = await runCli(["serve"], { ...env, SHOPSYNC_ADMIN_HOST: "0.0.0.0" })
    expect(open.code).toBe(1)
    expect(open.stderr).toMatch(/SHOPSYNC_ADMIN_TOKEN .*SHOPSYNC_ADMIN_HOST=0\.0\.0\.0 is not a loopback address.*openssl rand -hex 32/)
    expect(open.stderr).not.toMatch(/listening on/)
    const worker = await runCli(["worker"], { DATABASE_URL: db.url, SHOPSYNC_MASTER_KEY: randomBytes(32).toString("base64"), SHOPSYNC_ADMIN_HOST: "10.1.2.3" })
    expect(worker.code).toBe(1)
    expect(worker.stderr).toMatch(/SHOPSYNC_ADMIN_HOST=10\.1\.2\.3 is not a loopback address/)
    const dir = mkdtempSync(path.join(tmpdir(), "serve-admin-"))
    try {
      const missing = path.join(dir, "admin.token")
      const unreadable = await runCli(["serve"], { ...env, SHOPSYNC_ADMIN_HOST: "0.0.0.0", SHOPSYNC_ADMIN_TOKEN_FILE: missing })
      expect(unreadable.code).toBe(1)
      expect(unreadable.stderr).toContain(`SHOPSYNC_ADMIN_TOKEN_FILE ${missing}: cannot be read (ENOENT)`)
      writeFileSync(missing, "short\n")
      const short = await runCli(["serve"], { ...env, SHOPSYNC_ADMIN_TOKEN_FILE: missing })
      expect(short.code).toBe(1)
      expect(short.stderr).toContain("must hold a token of at least 32 characters")
    } finally {
      rmSync(dir, { recursive: true })
    }
  })

  it("the webhook listener answers 404 for the page, /metrics and /stores/x, and /healthz without its reason", async () => {
    for (const route of ["/", "/metrics", "/stores/x"]) {
      const r = await fetch(`${serve.base}${route}`, { headers: bearer(TOKEN) })
      expect({ route, status: r.status }).toEqual({ route, status: 404 })
    }
    const health = await fetch(`${serve.base}/healthz`)
    expect({ status: health.status, body: await health.json() }).toEqual({ status: 200, body: { status: "ok" } })
    expect(serve.stderr()).toMatch(/admin listener on http:\/\/0\.0\.0\.0:\d+ .*needs Authorization: Bearer/)
  })

  it("the admin listener serves the page, /metrics and /healthz to the token only", async () => {
    const wrongs = [TOKEN.replace(/.$/, (c) => (c === "0" ? "1" : "0")), `${TOKEN}0`, TOKEN.slice(1)]
    for (const route of ["/", "/metrics", "/healthz"]) {
      const none = await fetch(`${serve.admin}${route}`)
      expect({ route, status: none.status, challenge: none.headers.get("www-authenticate") }).toEqual({ route, status: 401, challenge: "Bearer realm=\"shopsync admin\"" })
      expect(await none.text()).not.toContain(STORE)
      for (const wrong of wrongs) expect({ route, wrong, status: (await fetch(`${serve.admin}${route}`, { headers: bearer(wrong) })).status }).toEqual({ route, wrong, status: 401 })
      expect({ route, status: (await fetch(`${serve.admin}${route}`, { headers: { authorization: `Basic ${TOKEN}` } })).status }).toEqual({ route, status: 401 })
      expect({ route, status: (await fetch(`${serve.admin}${route}`, { headers: bearer(TOKEN) })).status }).toEqual({ route, status: 200 })
    }
    const health = await (await fetch(`${serve.admin}/healthz`, { headers: bearer(TOKEN) })).json()
    expect(health).toMatchObject({ status: "ok", lastSync: expect.any(String) })
    expect(await (await fetch(`${serve.admin}/metrics`, { headers: bearer(TOKEN) })).text())
      .toMatch(new RegExp(`^shopsync_quarantined_documents\\{store="${STORE}",stream="orders"\\} 1$`, "m"))
  })

  it("stores a quarantined order's reason with the customer's e-mail masked, the document kept whole", async () => {
    const [held] = await sqlRows<{ id: string; reason: string; doc: string }>(db.url, "SELECT id, reason, doc FROM store.quarantine WHERE store_id = $1", [STORE])
    expect(held?.id).toBe(String(poisoned))
    expect(held!.reason).toContain("a***@example.org")
    expect(held!.reason).not.toContain(EMAIL)
    expect(JSON.parse(held!.doc)).toMatchObject({ id: poisoned, customer_id: EMAIL })
  })

  it("prints every e-mail address on the page masked: a reason held before masking, a contact the service refused", async () => {
    await sqlRows(db.url, `INSERT INTO store.quarantine (store_id, stream, id, kind, reason, doc)
                           VALUES ($1, 'customers', '77', 'invalid', $2, '{}')`, [STORE, `document (id 77): ["email"] Expected a valid address, actual "${EMAIL}"`])
    await sqlRows(db.url, `INSERT INTO marketing.outbox (store_id, email, state, state_hash, status, reason)
                           VALUES ($1, $2, '{}', 'x', 'quarantined', $3)`, [STORE, EMAIL, `the service refused ${EMAIL}`])
    const page = await (await fetch(`${serve.admin}/`, { headers: bearer(TOKEN) })).text()
    const section = (id: string) => new RegExp(`<section id="${id}">.*?</section>`, "s").exec(page)?.[0]
    expect(section("quarantine")).toContain(`<td>customers</td><td>77</td><td>invalid</td><td>document (id 77): [&quot;email&quot;] Expected a valid address, actual &quot;a***@example.org&quot;</td>`)
    expect(section("contacts")).toContain("<td>quarantined</td><td>the service refused a***@example.org</td><td>1</td><td>a***@example.org</td>")
    expect(page).not.toContain("alice")
  })
})
