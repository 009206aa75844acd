import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type * as SqlClient from "@effect/sql/SqlClient"
import { Cause, Effect, Either, Layer } from "effect"
import { storeIdConfig } from "../config/settings.js"
import { Outbox } from "../contacts/outbox.js"
import { storeReaders } from "../jobs/layers.js"
import { errorText } from "../sync/errors.js"
import { Runs } from "../sync/runs.js"
import { Quarantine } from "../warehouse/quarantine.js"
import { type ChartRequest, parseChartRequest } from "./chart-range.js"
import { html } from "./html.js"
import { salesWindow } from "./sales.js"
import { streamHealth } from "./stream-health.js"
import { type StatusReport, statusPage } from "./status-view.js"
import { topProducts } from "./top-products.js"
import type { WebhookSummary } from "./webhook-summary.js"

export { WebhookSummary } from "./webhook-summary.js"

/** The page forbids itself every resource but its inline style: nothing leaves the operator's browser. */
export const PAGE_HEADERS = {
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff"
}

const storeLayers = (storeId: string) => Layer.merge(storeReaders(storeId), Outbox.Default)

/** Reads everything the page shows, from the warehouse (and the inbox through `webhooks`). */
export const statusReport = (storeId: string, webhooks: Effect.Effect<WebhookSummary>, chart: ChartRequest) =>
  Effect.gen(function*() {
    const outbox = yield* Outbox
    const quarantine = yield* Quarantine
    const sales = yield* salesWindow(storeId, chart)
    return {
      storeId,
      generatedAt: new Date().toISOString(),
      streams: yield* streamHealth,
      runs: yield* Effect.flatMap(Runs, (runs) => runs.recent(5)),
      held: yield* quarantine.list,
      outbox: yield* outbox.counts(storeId),
      problems: yield* outbox.problems(storeId),
      webhooks: yield* webhooks,
      sales,
      topProducts: yield* topProducts(storeId, sales.first, sales.last)
    } satisfies StatusReport
  }).pipe(Effect.provide(storeLayers(storeId)))

export const unavailablePage = (why: string) =>
  html`<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>shopsync · warehouse unavailable</title></head>
<body><h1>The warehouse cannot be read</h1><p>${why}</p><p>The page shows the store's state again once the database answers.</p></body></html>`

/** A query the chart cannot draw: 400 with the problem, and the way back to the default. */
const badRangePage = (problem: string) =>
  html`<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>shopsync · bad chart range</title></head>
<body><h1>The chart's range cannot be drawn</h1><p class="problem">${problem}.</p><p><a href="?">The last days with sales</a></p></body></html>`

/** The request's query, as the chart reads it. */
const chartRequest = Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
  parseChartRequest(new URL(request.url, "http://page").searchParams))

/**
 * The status page of store `storeId`, its chart over the range the query asks for (400 when it cannot be drawn);
 * 503 with the reason when the warehouse does not answer.
 */
export const storePageResponse = (storeId: string, webhooks: Effect.Effect<WebhookSummary>) =>
  Effect.flatMap(chartRequest, Either.match({
    onLeft: (problem) => Effect.succeed(HttpServerResponse.html(badRangePage(problem).text).pipe(HttpServerResponse.setStatus(400), HttpServerResponse.setHeaders(PAGE_HEADERS))),
    onRight: (chart) => reportResponse(storeId, webhooks, chart)
  }))

const reportResponse = (storeId: string, webhooks: Effect.Effect<WebhookSummary>, chart: ChartRequest) =>
  Effect.map(statusReport(storeId, webhooks, chart), (report) =>
    HttpServerResponse.html(statusPage(report).text).pipe(HttpServerResponse.setHeaders(PAGE_HEADERS))).pipe(
    // The repositories die on what they cannot read (a stopped database too): every cause gets the 503 page.
    Effect.catchAllCause((cause) =>
      Effect.as(
        Effect.logWarning(`status page: ${errorText(Cause.squash(cause))}`),
        HttpServerResponse.html(unavailablePage(errorText(Cause.squash(cause))).text).pipe(HttpServerResponse.setStatus(503), HttpServerResponse.setHeaders(PAGE_HEADERS))
      ))
  )

/** `GET /` of `serve`: the status page of the configured store (STORE_ID). */
export const statusPageHandler = (webhooks: Effect.Effect<WebhookSummary>) =>
  Effect.flatMap(Effect.orDie(storeIdConfig), (storeId) => storePageResponse(storeId, webhooks))

/** The router serving the status page at `/`; its only requirement is the warehouse's SqlClient. */
export const statusPageRoute = (webhooks: Effect.Effect<WebhookSummary>): HttpRouter.HttpRouter<never, SqlClient.SqlClient> =>
  HttpRouter.empty.pipe(HttpRouter.get("/", statusPageHandler(webhooks)))
