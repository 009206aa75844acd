// `shopsync serve` under 200 slow connections that each declare a 1 MiB body, send most of it at once and drip the
// rest a byte a second: the process's memory stays bounded (the bytes buffered before a signature check have a
// global budget), every such connection is closed within the request timeout, and a valid signed delivery sent
// meanwhile is answered (200, or 503 with Retry-After and 200 once the slow connections are gone).
import * as fs from "node:fs"
import * as net from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { LISTENER_REQUEST_TIMEOUT_MS } from "../../src/config/listener-limits.js"
import { deliver, eventually, type Serve, serveStore, signed } from "../support/serve.js"

const STORE = "serve-l"
const SECRET = "whsec_limits"
const CONNECTIONS = 200
const DECLARED = 1024 * 1024
/** Sent at once: most of the declared body, so that whatever the server buffers shows in its memory. */
const SENT_AT_ONCE = DECLARED - 64 * 1024

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024

/** One slow connection: headers, most of the body, then a byte a second; resolves with when it closed. */
const slowConnection = (port: number) => {
  const socket = net.connect(port, "127.0.0.1")
  socket.on("error", () => {})
  socket.write(`POST /webhooks/store HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${DECLARED}\r\n\r\n`)
  socket.write(Buffer.alloc(SENT_AT_ONCE, 0x20))
  const drip = setInterval(() => socket.writable && socket.write(" "), 1_000)
  const closed = new Promise<number>((resolve) => socket.on("close", () => (clearInterval(drip), resolve(Date.now()))))
  return { socket, closed }
}

describe("shopsync serve under slow connections", () => {
  let serve: Serve
  let close: (() => Promise<void>) | undefined

  beforeAll(async () => {
    ;({ serve, close } = await serveStore({ seed: 41, orders: 20, customers: 5, products: 4, start: "2026-03-01", days: 5 }, STORE, SECRET))
  })
  afterAll(async () => {
    await close?.()
  })

  it("memory stays bounded, slow connections close within the request timeout, a signed delivery is still taken", async () => {
    const pid = serve.child.pid!
    const before = rssMb(pid)
    const opened = Date.now()
    const slow = Array.from({ length: CONNECTIONS }, () => slowConnection(serve.port))
    let peak = before
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 200)
    try {
      await new Promise((resolve) => setTimeout(resolve, 3_000))

      const body = JSON.stringify({ id: 1, status: "processing" })
      const headers = { "x-wc-webhook-signature": signed(body, SECRET), "x-wc-webhook-topic": "order.updated", "x-wc-webhook-id": "7", "x-wc-webhook-delivery-id": "limits-1" }
      const during = await deliver(serve.hookUrl, body, headers)
      if (during.status === 503) expect(Number(during.headers.get("retry-after"))).toBeGreaterThan(0)
      else expect(during.status).toBe(200)
      const taken = during.status === 200 ? during : await eventually(async () => {
        const again = await deliver(serve.hookUrl, body, headers)
        return again.status === 200 && again
      }, LISTENER_REQUEST_TIMEOUT_MS + 10_000, "the signed delivery taken")
      expect(await taken.json()).toMatchObject({ stored: expect.stringMatching(/new|duplicate/) })

      const closedAt = await Promise.race([
        Promise.all(slow.map((s) => s.closed)),
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), LISTENER_REQUEST_TIMEOUT_MS + 10_000))
      ])
      const latest = closedAt === undefined ? undefined : Math.max(...closedAt) - opened
      console.log(`serve RSS: before ${before.toFixed(0)} MB, peak under ${CONNECTIONS} slow connections ${peak.toFixed(0)} MB; last slow connection closed after ${latest ?? "(still open)"} ms (${closedAt?.filter((t) => t - opened < 5_000).length ?? 0} within 5 s: answered 503); the signed delivery was answered ${during.status} first`)
      expect(peak - before).toBeLessThan(80)
      expect(latest, "every slow connection closed").toBeDefined()
      expect(latest!).toBeLessThan(LISTENER_REQUEST_TIMEOUT_MS + 5_000)
    } finally {
      clearInterval(sampler)
      for (const s of slow) s.socket.destroy()
    }
  }, 90_000)
})
