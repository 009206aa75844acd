import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as tls from "node:tls"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "../support/cli.js"
import { freshDatabase } from "../support/database.js"

const root = path.resolve(fileURLToPath(new URL("../..", import.meta.url)))
const STORE = { STORE_CONSUMER_KEY: "ck_friction", STORE_CONSUMER_SECRET: "cs_friction" }

/** A loopback HTTPS server with a self-signed certificate (made by openssl for this run), answering JSON to anyone. */
const startTlsServer = async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsync-tls-"))
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path.join(dir, "key.pem"), "-out",
    path.join(dir, "cert.pem"), "-days", "1", "-subj", "/CN=127.0.0.1"], { stdio: "ignore" })
  let handshakes = 0
  const server = tls.createServer({ key: fs.readFileSync(path.join(dir, "key.pem")), cert: fs.readFileSync(path.join(dir, "cert.pem")) }, (socket) => {
    handshakes++
    socket.end("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n[]")
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    port,
    handshakes: () => handshakes,
    close: () => new Promise<void>((resolve) => server.close(() => (fs.rmSync(dir, { recursive: true, force: true }), resolve())))
  }
}

describe("an http:// address on an HTTPS-only port", () => {
  let server: Awaited<ReturnType<typeof startTlsServer>>
  let db: Awaited<ReturnType<typeof freshDatabase>>
  beforeAll(async () => {
    server = await startTlsServer()
    db = await freshDatabase()
  })
  afterAll(async () => {
    await server.close()
    await db.drop()
  })

  it("sync says at once that the store speaks HTTPS and which address to use, and exits 1 without retrying", async () => {
    const apiUrl = `http://127.0.0.1:${server.port}/wp-json/wc/v3`
    const started = Date.now()
    const run = await runCli(["sync", "--no-push"], { ...STORE, STORE_API_URL: apiUrl, DATABASE_URL: db.url, STORE_ID: "tls" })
    const seconds = (Date.now() - started) / 1000
    expect(run.code).toBe(1)
    expect(run.stderr).toContain(`the store at http://127.0.0.1:${server.port} speaks HTTPS`)
    expect(run.stderr).toContain(`use https://, STORE_API_URL=https://127.0.0.1:${server.port}/wp-json/wc/v3`)
    expect(run.stderr).not.toContain("retrying")
    expect(run.stderr).not.toContain("attempts")
    // Start-up and the warehouse's migration included; the old way was 8 attempts over 51 s.
    expect(seconds).toBeLessThan(30)
    expect(run.stderr).not.toContain("cs_friction")
  })

  it("check names the same fix", async () => {
    const run = await runCli(["check"], { ...STORE, STORE_API_URL: `http://127.0.0.1:${server.port}/wp-json/wc/v3`, DATABASE_URL: db.url })
    expect(run.code).toBe(3)
    expect(run.stdout + run.stderr).toContain("speaks HTTPS")
    expect(run.stdout + run.stderr).toContain("use the store's https:// address in STORE_API_URL")
  })
})

describe("environment variables named like shopsync's that are no setting", () => {
  it("each gets a warning with the setting probably meant; a missing setting names the misspelling set instead", async () => {
    const run = await runCli(["sync"], {
      STORE_API_URL: "https://shop.test/wp-json/wc/v3",
      STORE_CONSUMER_KEY: "ck_x",
      STORE_CONSUMER_SECRT: "cs_typo",
      STORE_CONCURENCY: "4",
      SHOPSYNC_MASTER_KEY_FIL: "/etc/key",
      MARKETING_CLIENTID: "mk",
      STORE_NOTHING_LIKE_IT: "1",
      // What Kubernetes defines for a Service named shopsync: not a mistake.
      SHOPSYNC_PORT: "tcp://10.0.0.7:8787",
      SHOPSYNC_SERVICE_HOST: "10.0.0.7",
      // Settings, the _FILE variants included, are not warned about.
      SHOPSYNC_ADMIN_TOKEN_FILE: "/nonexistent",
      SHOPSYNC_DEBUG: "0"
    })
    expect(run.code).toBe(1)
    const lines = run.stderr.trim().split("\n")
    const warnings = lines.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as { message: string; logLevel: string })
    expect(warnings.map((w) => w.logLevel)).toEqual(["WARN", "WARN", "WARN", "WARN", "WARN"])
    expect(warnings.map((w) => w.message)).toEqual([
      "environment: MARKETING_CLIENTID is not a shopsync setting and is ignored; did you mean MARKETING_CLIENT_ID?",
      "environment: SHOPSYNC_MASTER_KEY_FIL is not a shopsync setting and is ignored; did you mean SHOPSYNC_MASTER_KEY_FILE?",
      "environment: STORE_CONCURENCY is not a shopsync setting and is ignored; did you mean STORE_CONCURRENCY?",
      "environment: STORE_CONSUMER_SECRT is not a shopsync setting and is ignored; did you mean STORE_CONSUMER_SECRET?",
      "environment: STORE_NOTHING_LIKE_IT is not a shopsync setting and is ignored; config/shopsync.env.example lists the settings"
    ])
    expect(lines[lines.length - 1]).toContain("missing STORE_CONSUMER_SECRET (STORE_CONSUMER_SECRT is set: a misspelling?)")
    expect(run.stderr).not.toContain("cs_typo")
  })
})
