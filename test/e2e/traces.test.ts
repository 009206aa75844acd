import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base"
import { Effect, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import { runSync } from "../../src/sync/engine.js"
import { tracerLayer } from "../../src/telemetry/otel-tracer.js"
import { runCli } from "../support/cli.js"
import { freshDatabase } from "../support/database.js"
import { type Harness, makeHarness, syncRequest } from "../support/harness.js"

const KEY = "ck_trace_key_7f3a"
const SECRET = "cs_trace_secret_9b2e"

/** A span's parent, by the id OpenTelemetry records. */
const parentOf = (spans: ReadonlyArray<ReadableSpan>) => {
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]))
  return (s: ReadableSpan) => byId.get(s.parentSpanContext?.spanId ?? "")
}

/** The names from `s` up to the root. */
const ancestry = (spans: ReadonlyArray<ReadableSpan>, s: ReadableSpan) => {
  const parent = parentOf(spans)
  const names: Array<string> = []
  for (let at: ReadableSpan | undefined = s; at !== undefined; at = parent(at)) names.push(at.name)
  return names
}

describe("traces of a sync", () => {
  let h: Harness
  const exporter = new InMemorySpanExporter()
  let spans: ReadonlyArray<ReadableSpan>

  beforeAll(async () => {
    // Key and secret as query parameters: the way that puts them in the URL a span could record.
    h = await makeHarness(
      { consumerKey: KEY, consumerSecret: SECRET, data: { seed: 3, orders: 300 } },
      { consumerKey: Redacted.make(KEY), consumerSecret: Redacted.make(SECRET), auth: "query", perPage: 20 }
    )
    // Read before the tracer's layer closes: shutting down empties the in-memory exporter.
    spans = await h.run(runSync(syncRequest({ streams: ["orders"] })).pipe(
      Effect.zipRight(Effect.sync(() => [...exporter.getFinishedSpans()])),
      Effect.provide(tracerLayer(exporter, false))
    ))
  })
  afterAll(() => h?.close())

  it("has one run whose tree reaches from the stream to each store request and SQL statement", () => {
    const runs = spans.filter((s) => s.name === "sync.run")
    expect(runs).toHaveLength(1)
    const run = runs[0]!
    expect(run.parentSpanContext).toBeUndefined()
    expect(run.attributes).toMatchObject({ "shopsync.store": "test", "shopsync.mode": "sync", "shopsync.streams": "orders" })
    // Every span of the sync is in the run's trace.
    expect(new Set(spans.map((s) => s.spanContext().traceId))).toEqual(new Set([run.spanContext().traceId]))

    const stream = spans.find((s) => s.name === "sync.stream")!
    expect(stream.attributes).toMatchObject({ "shopsync.stream": "orders", "shopsync.rows": expect.any(Number) })
    expect(stream.attributes["shopsync.rows"]).toBeGreaterThan(0)

    const page = spans.find((s) => s.name === "sync.page" && Number(s.attributes["shopsync.docs"]) > 0)!
    const statement = spans.find((s) => s.name === "sql.execute" && ancestry(spans, s).includes("warehouse.merge"))!
    // sql.transaction and sql.execute are @effect/sql's own: the page and its checkpoint in one transaction, the merge
    // one script (its savepoint in it).
    expect(ancestry(spans, statement)).toEqual([
      "sql.execute", "warehouse.merge", "warehouse.load", "sql.transaction", "sync.page", "sync.slice", "sync.walk", "sync.stream", "sync.run"
    ])
    expect(ancestry(spans, page).slice(0, 5)).toEqual(["sync.page", "sync.slice", "sync.walk", "sync.stream", "sync.run"])

    // The pages of a slice are read beneath it, each request with its attempts.
    const attempt = spans.find((s) => s.name === "store.attempt" && ancestry(spans, s).includes("sync.walk"))!
    expect(ancestry(spans, attempt)).toEqual(["store.attempt", "store.request", "sync.slice", "sync.walk", "sync.stream", "sync.run"])
    const request = parentOf(spans)(attempt)!
    expect(request.attributes).toMatchObject({ "http.request.method": "GET", "url.path": expect.stringContaining("/orders"), "http.response.status_code": 200, "shopsync.attempts": 1 })
    expect(attempt.attributes).toMatchObject({ "shopsync.attempt": 1, "http.response.status_code": 200 })
  })

  it("splits a long slice into pieces, each a slice of its own beneath it", () => {
    const slices = spans.filter((s) => s.name === "sync.slice")
    const parent = parentOf(spans)
    expect(slices.filter((s) => parent(s)?.name === "sync.slice").length).toBeGreaterThanOrEqual(2)
  })

  it("records no key, secret or signature in any span", () => {
    const text = JSON.stringify(spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events })))
    expect(text).not.toContain(SECRET)
    expect(text).not.toContain(KEY)
    expect(text).not.toMatch(/oauth_signature|authorization/i)
    // The platform's own http.client spans (url.full as sent) are off for the store.
    expect(spans.some((s) => s.name.startsWith("http.client"))).toBe(false)
  })
})

describe("traces of a CLI sync, over OTLP", () => {
  let sim: StoreSimulator
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let receiver: http.Server
  const posts: Array<{ url: string; type: string; body: Buffer }> = []

  beforeAll(async () => {
    sim = await startStoreSimulator({ data: { seed: 3, orders: 100 } })
    db = await freshDatabase()
    // A collector's OTLP/HTTP endpoint: records what it is sent, answers 200 with an empty response.
    receiver = http.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        posts.push({ url: req.url ?? "", type: String(req.headers["content-type"]), body: Buffer.concat(chunks) })
        res.writeHead(200, { "content-type": "application/x-protobuf" }).end()
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  })
  afterAll(async () => {
    await new Promise((resolve) => receiver?.close(resolve))
    await sim?.close()
    await db?.drop()
  })

  it("posts the run's spans to OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces before it exits", async () => {
    const port = (receiver.address() as AddressInfo).port
    const run = await runCli(["sync", "--no-push", "--streams", "orders"], {
      DATABASE_URL: db.url, STORE_API_URL: sim.url, STORE_CONSUMER_KEY: "ck_demo", STORE_CONSUMER_SECRET: "cs_demo", STORE_ID: "otlp",
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`
    })
    expect(run.code, run.stderr).toBe(0)
    const traces = posts.filter((p) => p.url === "/v1/traces")
    expect(traces.length).toBeGreaterThan(0)
    expect(traces[0]!.type).toBe("application/x-protobuf")
    // Protobuf keeps strings as they are: names, the service and attributes can be looked for in the bytes.
    const bytes = Buffer.concat(traces.map((p) => p.body)).toString("latin1")
    for (const name of ["sync.run", "sync.stream", "sync.slice", "sync.page", "store.request", "sql.execute", "shopsync", "otlp"]) {
      expect(bytes).toContain(name)
    }
    expect(bytes).not.toContain("cs_demo")
    expect(bytes).not.toContain("ck_demo")
  })
})
