/**
 * `GET /metrics`: Prometheus text exposition of Effect `Metric`s, through @effect/opentelemetry's metric producer
 * and @opentelemetry/exporter-prometheus's serializer. What lives in the warehouse is read at each scrape and set
 * into gauges, so any process (one serving, one only syncing) reports the warehouse's truth.
 *
 * Metrics (labels in braces; `store` is STORE_ID under `serve`, each registered store under a worker):
 *   shopsync_stream_last_success_timestamp_seconds{store,stream}  when the stream last ran to the end (unix seconds)
 *   shopsync_stream_rows{store,stream}                            rows the warehouse holds for the stream (live rows)
 *   shopsync_stream_last_run_rows{store,stream}                   rows the stream's last run wrote
 *   shopsync_stream_last_run_failed{store,stream}                 1 when the stream's last run failed, else 0
 *   shopsync_stream_unavailable{store,stream}                     1 when the store does not serve the stream, else 0
 *   shopsync_quarantined_documents{store,stream}                  documents set aside because they could not be stored
 *   shopsync_webhook_deliveries_total{outcome[,store]}            deliveries accepted, rejected, applied by this process
 *                                                                 (a worker tags them with the store)
 *   shopsync_webhook_deliveries_total{outcome="full"[,store]}     deliveries refused (503) as the store's inbox was full
 *   shopsync_webhook_rejections_total{cause[,store]}              deliveries the listener refused, by cause (webhooks/rejections.ts)
 *   shopsync_webhook_inbox_pending{store}                         deliveries in the inbox waiting to be applied
 *   shopsync_webhook_inbox_bytes{store}                           bytes of bodies the inbox holds (SHOPSYNC_INBOX_MAX_MB bounds it)
 *   shopsync_webhook_last_received_timestamp_seconds{store}       when the last delivery arrived (unix seconds)
 *   shopsync_marketing_contacts{store,status}                     outbox contacts: pending, sent, failed, quarantined
 *   shopsync_reconcile_drift_rows{store,resource}                 rows the last reconciliation found missing, stale or gone
 *   shopsync_warehouse_up{store}                                  1 when this scrape could read the warehouse, else 0
 *   shopsync_runner_shards{runner}                                shards a worker holds (workers only)
 *   target_info{service_name="shopsync",…}                        the exporter's resource attributes
 */
import { HttpRouter, HttpServerResponse } from "@effect/platform"
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Metrics from "@effect/opentelemetry/Metrics"
import * as Resource from "@effect/opentelemetry/Resource"
import { PrometheusExporter, PrometheusSerializer } from "@opentelemetry/exporter-prometheus"
import { Cause, Effect, Layer, Metric, Option } from "effect"
import { storeIdConfig } from "../config/settings.js"
import { Outbox } from "../contacts/outbox.js"
import { storeReaders } from "../jobs/layers.js"
import { errorText } from "../sync/errors.js"
import { Reconciliations } from "../sync/reconcile/record.js"
import { webhookDeliveries } from "../webhooks/delivery-metrics.js"
import { Quarantine } from "../warehouse/quarantine.js"
import { streamHealth } from "./stream-health.js"
import type { WebhookSummary } from "./webhook-summary.js"

const gauge = (name: string, description: string) => Metric.gauge(name, { description })

const lastSuccess = gauge("shopsync_stream_last_success_timestamp_seconds", "When the stream last ran to the end, unix seconds")
const streamRows = gauge("shopsync_stream_rows", "Rows the warehouse holds for the stream")
const lastRunRows = gauge("shopsync_stream_last_run_rows", "Rows the stream's last run wrote")
const lastRunFailed = gauge("shopsync_stream_last_run_failed", "1 when the stream's last run failed, else 0")
const unavailable = gauge("shopsync_stream_unavailable", "1 when the store does not serve the stream, else 0")
const quarantined = gauge("shopsync_quarantined_documents", "Documents set aside because they could not be stored")
const inboxPending = gauge("shopsync_webhook_inbox_pending", "Webhook deliveries in the inbox waiting to be applied")
const inboxBytes = gauge("shopsync_webhook_inbox_bytes", "Bytes of webhook bodies the store's inbox holds, which SHOPSYNC_INBOX_MAX_MB bounds")
const lastReceived = gauge("shopsync_webhook_last_received_timestamp_seconds", "When the last webhook delivery arrived, unix seconds")
const contacts = gauge("shopsync_marketing_contacts", "Contacts in the marketing outbox, by status")
const driftRows = gauge("shopsync_reconcile_drift_rows", "Rows the last reconciliation found missing, stale or gone, by resource")
const warehouseUp = gauge("shopsync_warehouse_up", "1 when the scrape could read the warehouse, else 0")
/** Set by a worker whenever its share changes. */
export const runnerShards = gauge("shopsync_runner_shards", "Shards of the cluster this worker holds")

/**
 * The exporter: serializes every Effect metric of the process in Prometheus text format, as a reader of Effect's
 * metric registry (no server of its own: /metrics is a route of the admin listener).
 */
export class PrometheusMetrics extends Effect.Service<PrometheusMetrics>()("shopsync/PrometheusMetrics", {
  scoped: Effect.gen(function*() {
    const exporter = new PrometheusExporter({ preventServerStart: true, withoutScopeInfo: true })
    yield* Metrics.registerProducer(yield* Metrics.makeProducer, () => exporter)
    const serializer = new PrometheusSerializer(undefined, false, undefined, false, true)
    // Every outcome is exported from the start, at 0 until a delivery has it.
    yield* Effect.forEach(["accepted", "rejected", "applied", "full"], (outcome) => Metric.value(Metric.tagged(webhookDeliveries, "outcome", outcome)))
    return {
      scrape: Effect.map(Effect.promise(() => exporter.collect()), ({ resourceMetrics }) => serializer.serialize(resourceMetrics))
    }
  }),
  dependencies: [Resource.layer({ serviceName: "shopsync" })]
}) {}

const bit = (on: boolean) => (on ? 1 : 0)

/** Sets the per-stream and outbox gauges from the warehouse, as of now. */
const readWarehouse = (storeId: string) =>
  Effect.gen(function*() {
    const streams = yield* streamHealth
    const held = yield* Effect.flatMap(Quarantine, (q) => q.list)
    for (const s of streams) {
      const tag = (m: Metric.Metric.Gauge<number>) => m.pipe(Metric.tagged("store", storeId), Metric.tagged("stream", s.status.stream))
      if (s.lastSuccessAt !== undefined) yield* Metric.set(tag(lastSuccess), s.lastSuccessAt)
      if (s.status.rows !== "") yield* Metric.set(tag(streamRows), Number(s.status.rows))
      if (s.status.last_rows !== null) yield* Metric.set(tag(lastRunRows), Number(s.status.last_rows))
      yield* Metric.set(tag(lastRunFailed), bit(s.health === "failing"))
      yield* Metric.set(tag(unavailable), bit(s.health === "unavailable"))
      yield* Metric.set(tag(quarantined), held.filter((h) => h.stream === s.status.stream).length)
    }
    const counts = yield* Effect.flatMap(Outbox, (o) => o.counts(storeId))
    for (const status of ["pending", "sent", "failed", "quarantined"] as const) {
      yield* Metric.set(contacts.pipe(Metric.tagged("store", storeId), Metric.tagged("status", status)), counts[status])
    }
    const last = yield* Effect.flatMap(Reconciliations, (r) => r.last)
    for (const r of last?.resources ?? []) {
      yield* Metric.set(driftRows.pipe(Metric.tagged("store", storeId), Metric.tagged("resource", r.resource)), r.missing + r.stale + r.gone)
    }
  }).pipe(Effect.provide(Layer.merge(storeReaders(storeId), Outbox.Default)))

const readInbox = (storeId: string, webhooks: Effect.Effect<WebhookSummary>) =>
  Effect.gen(function*() {
    const summary = yield* webhooks
    yield* Metric.set(Metric.tagged(inboxPending, "store", storeId), summary.pending)
    yield* Metric.set(Metric.tagged(inboxBytes, "store", storeId), summary.bytes)
    const received = Option.filter(Option.fromNullable(summary.lastReceivedAt).pipe(Option.map(Date.parse)), (ms) => !Number.isNaN(ms))
    if (Option.isSome(received)) yield* Metric.set(Metric.tagged(lastReceived, "store", storeId), received.value / 1000)
  })

/** A store whose series a scrape refreshes, with its inbox summary. */
export interface MeasuredStore {
  readonly storeId: string
  readonly webhooks: Effect.Effect<WebhookSummary>
}

/** Refreshes one store's gauges; a failure to read the warehouse shows as its shopsync_warehouse_up 0. */
const refreshStore = ({ storeId, webhooks }: MeasuredStore) =>
  Effect.gen(function*() {
    const read = yield* Effect.exit(Effect.zipRight(readWarehouse(storeId), readInbox(storeId, webhooks)))
    if (read._tag === "Failure") yield* Effect.logWarning(`metrics: the warehouse was not read for store ${storeId}: ${errorText(Cause.squash(read.cause))}`)
    yield* Metric.set(Metric.tagged(warehouseUp, "store", storeId), bit(read._tag === "Success"))
  })

/** Refreshes the gauges of every store `stores` names (`serve`: its one, a worker: the registry's), then serializes. */
export const metricsOf = <E, R>(stores: Effect.Effect<ReadonlyArray<MeasuredStore>, E, R>) =>
  Effect.gen(function*() {
    const listed = yield* Effect.either(stores)
    if (listed._tag === "Left") yield* Effect.logWarning(`metrics: the stores to report were not read: ${errorText(listed.left)}`)
    else yield* Effect.forEach(listed.right, refreshStore, { discard: true })
    const text = yield* Effect.flatMap(PrometheusMetrics, (m) => m.scrape)
    return HttpServerResponse.text(text, { contentType: "text/plain; version=0.0.4; charset=utf-8" })
  })

/** `serve`'s /metrics: the configured store (STORE_ID). */
export const metricsHandler = (webhooks: Effect.Effect<WebhookSummary>) =>
  metricsOf(Effect.map(Effect.orDie(storeIdConfig), (storeId) => [{ storeId, webhooks }]))

/** The router serving `GET /metrics`; it needs the warehouse's SqlClient and PrometheusMetrics. */
export const metricsRoute = (webhooks: Effect.Effect<WebhookSummary>): HttpRouter.HttpRouter<never, SqlClient.SqlClient | PrometheusMetrics> =>
  HttpRouter.empty.pipe(HttpRouter.get("/metrics", metricsHandler(webhooks)))
