// SHOPSYNC_ALERT_WEBHOOK_URL through the real CLI and serve: a loopback HTTP server of the test's own is the receiver.
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AlertPayload } from "../../src/jobs/alert-payload.js"
import { startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import { runCli } from "../support/cli.js"
import { freshDatabase } from "../support/database.js"
import { freePort } from "../support/ports.js"
import { eventually, startServe } from "../support/serve.js"

/** A receiver recording every POST's body; its URL's path stands for a Slack token. */
const startReceiver = async () => {
  const bodies: Array<string> = []
  const server = http.createServer((req, res) => {
    let body = ""
    req.on("data", (d) => (body += String(d)))
    req.on("end", () => {
      bodies.push(body)
      res.writeHead(200).end("ok")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}/services/T0SECRET/B0SECRET/xoxTokenInThePath`,
    payloads: () => bodies.map((b) => Schema.decodeUnknownSync(AlertPayload)(JSON.parse(b))),
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/**
 * A "store" behind a verbose proxy: every request answered 401 with a message that echoes the request as received
 * (over http the query carries the OAuth 1.0a key and signature) and an e-mail address.
 */
const startEchoingStore = async () => {
  const server = http.createServer((req, res) => {
    const message = `Invalid signature for GET ${req.url}; write to admin.person@shop.test`
    res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ code: "woocommerce_rest_authentication_error", message }))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}/wp-json/wc/v3`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

const WRONG_KEY = "ck_wrongkey0123456789abcdef"
const SECRET = "cs_topsecret0123456789abcdef"
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/

/** Nothing in an alert that a third party must not see. */
const expectNoSecret = (body: string, databaseUrl: string) => {
  for (const s of [WRONG_KEY, SECRET, "xoxTokenInThePath", "admin.person@", new URL(databaseUrl).password || "\u0000"]) expect(body).not.toContain(s)
  expect(body).not.toMatch(/oauth_signature=(?!\*\*\*)/)
  expect(body).not.toMatch(/consumer_key=(?!\*\*\*)/)
}

describe("alerts to SHOPSYNC_ALERT_WEBHOOK_URL", () => {
  let sim: StoreSimulator
  let db: Awaited<ReturnType<typeof freshDatabase>>
  const STORE_ID = "alerted"
  const env = (extra: Record<string, string> = {}) => ({
    DATABASE_URL: db.url, STORE_API_URL: sim.url, STORE_CONSUMER_KEY: "ck_demo", STORE_CONSUMER_SECRET: "cs_demo",
    STORE_ID, STORE_SETTLE_SECONDS: "0", STORE_MAX_ATTEMPTS: "1", ...extra
  })

  beforeAll(async () => {
    sim = await startStoreSimulator({ data: { seed: 3, orders: 40, customers: 8, products: 4 } })
    db = await freshDatabase()
  })
  afterAll(async () => {
    await sim?.close()
    await db?.drop()
  })

  it("a sync with a wrong key: one run_failed POST without any secret, the exit code unchanged", async () => {
    const wrong = { STORE_CONSUMER_KEY: WRONG_KEY, STORE_CONSUMER_SECRET: SECRET }
    const without = await runCli(["sync"], env(wrong))
    const receiver = await startReceiver()
    try {
      const run = await runCli(["sync"], env({ ...wrong, SHOPSYNC_ALERT_WEBHOOK_URL: receiver.url }))
      expect(run.code).toBe(without.code)
      expect(run.code).toBe(1)
      expect(receiver.bodies).toHaveLength(1)
      const [alert] = receiver.payloads()
      expect(alert).toMatchObject({ event: "run_failed", store: STORE_ID, command: "sync", host: os.hostname() })
      expect(alert!.at).toMatch(ISO_WITH_ZONE)
      expect(alert!.error).toContain("the store rejected the consumer key")
      expect(alert!.text).toContain(`sync of store ${STORE_ID} failed`)
      expectNoSecret(receiver.bodies[0]!, db.url)
      // The receiver's URL is a secret too: only its host is logged.
      expect(run.stderr).not.toContain("xoxTokenInThePath")
    } finally {
      await receiver.close()
    }
  })

  it("a store whose answer echoes the signed request and an e-mail address: scrubbed from the alert", async () => {
    const store = await startEchoingStore()
    const receiver = await startReceiver()
    try {
      const run = await runCli(["sync"], env({
        STORE_API_URL: store.url, STORE_CONSUMER_KEY: WRONG_KEY, STORE_CONSUMER_SECRET: SECRET, SHOPSYNC_ALERT_WEBHOOK_URL: receiver.url
      }))
      expect(run.code).toBe(1)
      // The failure's own message carries them (logs stay on this machine): the alert must not.
      expect(run.stderr).toContain("oauth_signature=")
      expect(run.stderr).toContain(WRONG_KEY)
      expect(receiver.bodies).toHaveLength(1)
      const [alert] = receiver.payloads()
      expect(alert).toMatchObject({ event: "run_failed", store: STORE_ID })
      expect(alert!.error).toContain("oauth_signature=***")
      expect(alert!.error).toContain("a***@shop.test")
      expectNoSecret(receiver.bodies[0]!, db.url)
    } finally {
      await receiver.close()
      await store.close()
    }
  })

  it("SHOPSYNC_ALERT_WEBHOOK_URL_FILE: the URL read from a file, a warning when others may read it", async () => {
    const receiver = await startReceiver()
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "alerts-"))
    const file = path.join(dir, "alert.url")
    fs.writeFileSync(file, `${receiver.url}\n`, { mode: 0o644 })
    try {
      const run = await runCli(["sync"], env({ STORE_CONSUMER_KEY: WRONG_KEY, SHOPSYNC_ALERT_WEBHOOK_URL_FILE: file }))
      expect(run.code).toBe(1)
      expect(receiver.payloads().map((p) => p.event)).toEqual(["run_failed"])
      expect(run.stderr).toContain(`SHOPSYNC_ALERT_WEBHOOK_URL_FILE ${file} is readable by every user`)
      expect(run.stderr).not.toContain("xoxTokenInThePath")
    } finally {
      fs.rmSync(dir, { recursive: true })
      await receiver.close()
    }
  })

  it("a receiver that is down: the sync exits with its own code (2: a stream failed) and one warning names the setting", async () => {
    sim.setFaults([{ kind: "503", pathPrefix: "/products" }])
    try {
      const without = await runCli(["sync"], env())
      expect(without.code).toBe(2)
      const down = `http://127.0.0.1:${await freePort()}/services/T0SECRET/B0SECRET/xoxTokenInThePath`
      const run = await runCli(["sync"], env({ SHOPSYNC_ALERT_WEBHOOK_URL: down }))
      expect(run.code).toBe(2)
      const warnings = run.stderr.split("\n").filter((l) => l.includes("not delivered"))
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toContain("SHOPSYNC_ALERT_WEBHOOK_URL")
      expect(warnings[0]).toContain("ECONNREFUSED")
      expect(run.stderr).not.toContain("xoxTokenInThePath")
    } finally {
      sim.setFaults([])
    }
  })

  it("a plain-http receiver off loopback is refused before anything runs, naming the fix", async () => {
    const run = await runCli(["sync"], env({ SHOPSYNC_ALERT_WEBHOOK_URL: "http://alerts.example.com/hooks/xoxTokenInThePath" }))
    expect(run.code).toBe(1)
    expect(run.stderr).toContain("SHOPSYNC_ALERT_ALLOW_HTTP=1")
    expect(run.stderr).not.toContain("xoxTokenInThePath")
  })

  it("serve: a store that stops answering alerts stale once, then recovered once when it answers again", async () => {
    const receiver = await startReceiver()
    const serve = await startServe(env({ SHOPSYNC_SYNC_EVERY: "3s", STORE_REQUEST_TIMEOUT_MS: "2000", SHOPSYNC_ALERT_WEBHOOK_URL: receiver.url }))
    const events = () => receiver.payloads().map((p) => p.event).filter((e) => e !== "run_failed")
    try {
      await serve.ready
      sim.setFaults([{ kind: "503" }])
      await eventually(async () => events().includes("stale"), 60_000, "the stale alert")
      const stale = receiver.payloads().find((p) => p.event === "stale")!
      expect(stale).toMatchObject({ store: STORE_ID, stream: "orders", host: os.hostname() })
      expect(stale.last_success_at).toMatch(ISO_WITH_ZONE)
      expect(receiver.payloads().some((p) => p.event === "run_failed")).toBe(true)
      // Later failed ticks do not alert stale again.
      await new Promise((resolve) => setTimeout(resolve, 7_000))
      expect(events()).toEqual(["stale"])
      sim.setFaults([])
      await eventually(async () => events().includes("recovered"), 60_000, "the recovered alert")
      await new Promise((resolve) => setTimeout(resolve, 7_000))
      expect(events()).toEqual(["stale", "recovered"])
      for (const body of receiver.bodies) expectNoSecret(body, db.url)
    } finally {
      sim.setFaults([])
      serve.child.kill("SIGKILL")
      await receiver.close()
    }
  })
})
