import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Clock, Duration, Effect } from "effect"
import type { StoreListing } from "../stores/registry.js"
import { errorText } from "../sync/errors.js"
import type { StoreWaiting } from "../webhooks/inbox.js"
import { type Html, html } from "./html.js"
import { PAGE_HEADERS, unavailablePage } from "./status-page.js"
import { STATUS_CSS } from "./status-style.js"

/** How current a store is: its last successful sync against its interval. */
export type Freshness = "current" | "late" | "never synced" | "paused"

/** Current while the last success is at most two intervals old: one interval plus the time a sync takes. */
export const freshness = (store: StoreListing, nowMs: number): Freshness => {
  if (!store.enabled) return "paused"
  if (store.lastSuccessAt === null) return "never synced"
  return nowMs - Date.parse(store.lastSuccessAt) <= 2 * store.everyMs ? "current" : "late"
}

const BADGE: Readonly<Record<Freshness, string>> = { current: "ok", late: "failing", "never synced": "never-succeeded", paused: "unavailable" }

/** An ISO 8601 timestamp as the status page prints them, or "never". */
const when = (iso: string | null) => (iso === null ? "never" : `${iso.slice(0, 19).replace("T", " ")} UTC`)

const row = (store: StoreListing, waiting: StoreWaiting | undefined, nowMs: number): Html => {
  const fresh = freshness(store, nowMs)
  return html`<tr data-store="${store.storeId}"><td><a href="/stores/${encodeURIComponent(store.storeId)}">${store.storeId}</a></td><td>${store.enabled ? "yes" : "paused"}</td><td>${Duration.format(Duration.millis(store.everyMs))}</td><td><span class="badge ${BADGE[fresh]}">${fresh}</span></td><td>${when(store.lastSuccessAt)}</td><td>${store.lastError ?? ""}</td><td>${store.runner ?? ""}</td><td class="pending">${waiting?.pending ?? 0}</td><td class="failed">${waiting?.failed ?? 0}</td></tr>`
}

/** The page of a worker's GET /: one row per registered store, each linking to its own status page. */
export const storesPage = (stores: ReadonlyArray<StoreListing>, waiting: ReadonlyArray<StoreWaiting>, runner: string, nowMs: number): Html => {
  const byStore = new Map(waiting.map((w) => [w.store_id, w]))
  const late = stores.filter((s) => freshness(s, nowMs) === "late").length
  const headers = ["store", "enabled", "every", "freshness", "last success", "last error", "runner", "webhooks waiting", "webhooks failed"]
  const body = stores.length === 0
    ? html`<p class="empty">No store is registered: add one with <code>shopsync stores add</code>.</p>`
    : html`<table class="stores"><thead><tr>${headers.map((h) => html`<th>${h}</th>`)}</tr></thead><tbody>${stores.map((s) => row(s, byStore.get(s.storeId), nowMs))}</tbody></table>`
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="60"><link rel="icon" href="data:,">
<title>shopsync · ${stores.length} stores</title><style>${STATUS_CSS}</style></head>
<body><header><h1>shopsync <span class="muted">stores</span></h1><p class="muted">${stores.length} registered, ${late} late · served by worker ${runner} · as of ${when(new Date(nowMs).toISOString())} · refreshes every minute</p></header>
<main><section id="stores"><h2>Registered stores</h2><p class="muted">Current: the last successful sync is at most two intervals old. A store's name opens its own page.</p>${body}</section></main></body></html>`
}

/** GET / of a worker: the page across stores, or the 503 page when the warehouse does not answer. */
export const storesPageResponse = <E, R>(read: Effect.Effect<{ stores: ReadonlyArray<StoreListing>; waiting: ReadonlyArray<StoreWaiting> }, E, R>, runner: string) =>
  Effect.map(Effect.zip(read, Clock.currentTimeMillis), ([{ stores, waiting }, now]) =>
    HttpServerResponse.html(storesPage(stores, waiting, runner, now).text).pipe(HttpServerResponse.setHeaders(PAGE_HEADERS))).pipe(
    Effect.catchAllCause((cause) =>
      Effect.as(
        Effect.logWarning(`stores page: ${errorText(Cause.squash(cause))}`),
        HttpServerResponse.html(unavailablePage(errorText(Cause.squash(cause))).text).pipe(HttpServerResponse.setStatus(503), HttpServerResponse.setHeaders(PAGE_HEADERS))
      ))
  )
