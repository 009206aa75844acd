// GET /metrics: Prometheus text, parsed here line by line (the exposition format's grammar for samples, HELP and
// TYPE), whose names, labels and values must be what the warehouse holds after a real sync of the simulator.
import { Effect, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Outbox } from "../../src/contacts/outbox.js"
import { metricsRoute } from "../../src/server/metrics.js"
import type { WebhookSummary } from "../../src/server/webhook-summary.js"
import { STREAMS } from "../../src/sync/catalogue.js"
import { countDelivery } from "../../src/webhooks/delivery-metrics.js"
import { pgLayer } from "../../src/warehouse/database.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { type ServedRoutes, serveRoutes } from "../support/routes.js"

interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/y

const parseLabels = (text: string): Record<string, string> => {
  const labels: Record<string, string> = {}
  LABEL.lastIndex = 0
  while (LABEL.lastIndex < text.length) {
    const m = LABEL.exec(text)
    if (m === null) throw new Error(`bad labels: ${text}`)
    labels[m[1]!] = m[2]!.replace(/\\n/g, "\n").replace(/\\"/g, "\"").replace(/\\\\/g, "\\")
  }
  return labels
}

/** Samples and declared types; throws on a line the text format does not allow, or a sample whose family has no TYPE. */
const parseExposition = (text: string) => {
  const types = new Map<string, string>()
  const samples: Sample[] = []
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line)
    if (type !== null) types.set(type[1]!, type[2]!)
    if (line.startsWith("#")) continue
    const m = SAMPLE.exec(line)
    if (m === null) throw new Error(`not a sample line: ${line}`)
    const family = types.has(m[1]!) ? m[1]! : m[1]!.replace(/_(count|sum|bucket)$/, "")
    if (!types.has(family) || (family !== m[1] && !["histogram", "summary"].includes(types.get(family)!))) throw new Error(`sample before its TYPE: ${line}`)
    samples.push({ name: m[1]!, labels: parseLabels(m[2] ?? ""), value: Number(m[3]) })
  }
  return { types, samples }
}

const WEBHOOKS: WebhookSummary = { received: 9, applied: 5, failed: 1, pending: 3, bytes: 4096, lastReceivedAt: "2026-07-01T10:20:30.000Z", rejected: [] }

describe("GET /metrics", () => {
  let h: Harness
  let served: ServedRoutes
  beforeAll(async () => {
    h = await makeHarness({ data: { seed: 12, orders: 300, start: "2026-01-01", days: 40 }, routes: { disabled: ["/webhooks"] } })
    await h.sync({ streams: STREAMS, named: false })
    // shipping_classes fails on its next run: the store answers 503 until the client gives up.
    h.sim.setFaults([{ kind: "503", pathPrefix: "/products/shipping_classes" }])
    await expect(h.sync({ streams: ["shipping_classes"], named: true })).rejects.toThrow(/shipping_classes/)
    h.sim.setFaults([])
    // The contacts the warehouse derives wait in the outbox (nothing pushes them here).
    await Effect.runPromise(Effect.flatMap(Outbox, (o) => o.enqueue(STORE_ID)).pipe(Effect.provide(Outbox.Default), Effect.provide(pgLayer(Redacted.make(h.dbUrl)))))
    served = await serveRoutes(metricsRoute(Effect.succeed(WEBHOOKS)), h.dbUrl, STORE_ID)
  })
  afterAll(async () => {
    await served?.close()
    await h?.close()
  })

  const scrape = async () => {
    const response = await fetch(`${served.url}/metrics`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/)
    return parseExposition(await response.text())
  }
  const value = (samples: ReadonlyArray<Sample>, name: string, labels: Record<string, string>) =>
    samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).map((s) => s.value)

  it("reports each stream's last success, rows, failure and availability as the warehouse holds them", async () => {
    const { samples, types } = await scrape()
    const state = await h.rows<{ stream: string; success: string | null; last_rows: string | null; failed: boolean; unavailable: boolean; live: string | null }>(
      `SELECT s.stream, floor(extract(epoch FROM s.last_success_at))::bigint::text AS success, s.last_rows::text, s.last_error IS NOT NULL AS failed,
              s.details ? 'unavailable' AS unavailable,
              CASE s.stream WHEN 'orders' THEN sync.live_rows('store.orders', $1)::text WHEN 'customers' THEN sync.live_rows('store.customers', $1)::text END AS live
       FROM sync.state s WHERE s.store_id = $1`, [STORE_ID])
    expect(state.length).toBeGreaterThan(10)
    for (const row of state) {
      const at = { store: STORE_ID, stream: row.stream }
      expect({ at, v: value(samples, "shopsync_stream_last_success_timestamp_seconds", at) }).toEqual({ at, v: row.success === null ? [] : [Number(row.success)] })
      expect({ at, v: value(samples, "shopsync_stream_last_run_rows", at) }).toEqual({ at, v: row.last_rows === null ? [] : [Number(row.last_rows)] })
      expect({ at, v: value(samples, "shopsync_stream_unavailable", at) }).toEqual({ at, v: [row.unavailable ? 1 : 0] })
      expect({ at, v: value(samples, "shopsync_stream_last_run_failed", at) }).toEqual({ at, v: [row.failed && !row.unavailable ? 1 : 0] })
      if (row.live !== null) expect({ at, v: value(samples, "shopsync_stream_rows", at) }).toEqual({ at, v: [Number(row.live)] })
    }
    expect(value(samples, "shopsync_stream_last_run_failed", { stream: "shipping_classes" })).toEqual([1])
    expect(value(samples, "shopsync_stream_unavailable", { stream: "webhooks" })).toEqual([1])
    expect(value(samples, "shopsync_stream_rows", { stream: "orders" })).toEqual([h.sim.state.orderById.size])
    expect(types.get("shopsync_stream_last_success_timestamp_seconds")).toBe("gauge")
    expect(samples.filter((s) => s.name === "shopsync_quarantined_documents").every((s) => s.value === 0)).toBe(true)
    expect(value(samples, "shopsync_warehouse_up", { store: STORE_ID })).toEqual([1])
  })

  it("counts webhook deliveries by outcome, and shows the inbox depth and the contacts outbox", async () => {
    const before = await scrape()
    expect(before.types.get("shopsync_webhook_deliveries_total")).toBe("counter")
    const rejected = value(before.samples, "shopsync_webhook_deliveries_total", { outcome: "rejected" })
    expect(rejected).toHaveLength(1)
    await Effect.runPromise(Effect.zipRight(countDelivery("rejected", STORE_ID), countDelivery("rejected", STORE_ID)))
    const after = await scrape()
    expect(value(after.samples, "shopsync_webhook_deliveries_total", { outcome: "rejected" })).toEqual([rejected[0]! + 2])
    expect(value(after.samples, "shopsync_webhook_deliveries_total", { outcome: "accepted" })).toHaveLength(1)
    expect(value(after.samples, "shopsync_webhook_inbox_pending", { store: STORE_ID })).toEqual([WEBHOOKS.pending])
    expect(value(after.samples, "shopsync_webhook_last_received_timestamp_seconds", { store: STORE_ID })).toEqual([Date.parse(WEBHOOKS.lastReceivedAt!) / 1000])
    const [outbox] = await h.rows<Record<string, number>>(
      `SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending, count(*) FILTER (WHERE status = 'sent')::int AS sent,
              count(*) FILTER (WHERE status = 'failed')::int AS failed, count(*) FILTER (WHERE status = 'quarantined')::int AS quarantined
       FROM marketing.outbox WHERE store_id = $1`, [STORE_ID])
    expect(outbox!["pending"]).toBeGreaterThan(0)
    for (const status of ["pending", "sent", "failed", "quarantined"]) {
      expect({ status, v: value(after.samples, "shopsync_marketing_contacts", { store: STORE_ID, status }) }).toEqual({ status, v: [outbox![status]] })
    }
    expect(after.samples.find((s) => s.name === "target_info")?.labels["service_name"]).toBe("shopsync")
  })
})
