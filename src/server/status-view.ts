import { Option } from "effect"
import type { OutboxCounts, OutboxProblem } from "../contacts/outbox.js"
import type { RecentRun } from "../sync/runs.js"
import type { HeldRow } from "../warehouse/quarantine.js"
import { REJECTIONS } from "../webhooks/rejections.js"
import { salesChart } from "./chart.js"
import { addDays, CHART_DAYS, daysBetween, MAX_CHART_DAYS } from "./chart-range.js"
import { formatAmount, type Html, html } from "./html.js"
import type { SalesWindow } from "./sales.js"
import type { Health, StreamHealth } from "./stream-health.js"
import { STATUS_CSS } from "./status-style.js"
import { TOP_PRODUCTS, type TopProduct } from "./top-products.js"
import type { WebhookSummary } from "./webhook-summary.js"

/** Everything the status page shows, read at request time. */
export interface StatusReport {
  readonly storeId: string
  /** When the page was made (ISO 8601, UTC). */
  readonly generatedAt: string
  readonly streams: ReadonlyArray<StreamHealth>
  readonly runs: ReadonlyArray<RecentRun>
  readonly held: ReadonlyArray<HeldRow>
  readonly outbox: OutboxCounts
  readonly problems: ReadonlyArray<OutboxProblem>
  readonly webhooks: WebhookSummary
  readonly sales: SalesWindow
  /** The best sellers over the chart's days, per currency (top-products.ts). */
  readonly topProducts: ReadonlyArray<TopProduct>
}

const LABELS: Readonly<Record<Health, string>> = {
  ok: "OK",
  failing: "failing",
  unavailable: "unavailable",
  running: "started, not finished",
  "never succeeded": "never succeeded"
}

const badge = (health: Health) => html`<span class="badge ${health.replace(" ", "-")}">${LABELS[health]}</span>`

const table = (headers: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<Html | string | number | null>>, name = "") =>
  html`<table class="${name}"><thead><tr>${headers.map((h) => html`<th>${h}</th>`)}</tr></thead><tbody>${
    rows.map((cells) => html`<tr>${cells.map((c) => html`<td>${c}</td>`)}</tr>`)
  }</tbody></table>`

const card = (title: string, value: string | number, note: string, tone: "good" | "bad" | "neutral") =>
  html`<div class="card ${tone}"><div class="card-title">${title}</div><div class="card-value">${value}</div><div class="card-note">${note}</div></div>`

const summary = (r: StatusReport): Html => {
  const streams = r.streams.filter((s) => s.isStream)
  const failing = streams.filter((s) => s.health === "failing")
  const unavailable = streams.filter((s) => s.health === "unavailable")
  const lastSuccess = Math.max(0, ...streams.map((s) => s.lastSuccessAt ?? 0))
  return html`<section class="cards" aria-label="At a glance">${[
    card("Streams", `${streams.filter((s) => s.health === "ok").length} of ${streams.length} OK`,
      failing.length > 0 ? `failing: ${failing.map((s) => s.status.stream).join(", ")}` : `${unavailable.length} unavailable`,
      failing.length > 0 ? "bad" : streams.length === 0 ? "neutral" : "good"),
    card("Last successful sync", lastSuccess === 0 ? "never" : `${new Date(lastSuccess * 1000).toISOString().slice(0, 19).replace("T", " ")} UTC`,
      "the latest stream to finish", lastSuccess === 0 ? "bad" : "neutral"),
    card("Webhooks waiting", r.webhooks.pending, `${r.webhooks.applied} applied, ${r.webhooks.failed} failed, ${rejectedTotal(r.webhooks)} rejected since start`,
      rejectedTotal(r.webhooks) > 0 ? "bad" : r.webhooks.pending > 0 ? "neutral" : "good"),
    card("Quarantined records", r.held.length, "documents set aside", r.held.length > 0 ? "bad" : "good"),
    card("Contacts to push", r.outbox.pending, `${r.outbox.failed} failed, ${r.outbox.quarantined} quarantined`, r.outbox.failed > 0 ? "bad" : "good")
  ]}</section>`
}

/** Links to the windows before and after this one (same length) and back to the default; relative, so they keep the page's path. */
const salesNavigation = (sales: SalesWindow): Html => {
  const span = daysBetween(sales.first, sales.last)
  const link = (from: string, to: string, text: string) => html`<a href="?from=${from}&amp;to=${to}">${text}</a>`
  return html`<nav class="range" aria-label="Chart range">${link(addDays(sales.first, -span), addDays(sales.first, -1), `← ${span} days before`)} · ${
    link(addDays(sales.last, 1), addDays(sales.last, span), `${span} days after →`)}${sales.chosen ? html` · <a href="?">the last ${CHART_DAYS} days with sales</a>` : ""}</nav>`
}

const salesSection = (sales: SalesWindow): Html => {
  const charts = sales.currencies.map((c) =>
    html`<figure class="chart" data-currency="${c.currency}"><figcaption><span class="currency">${c.currency}</span> net sales: <strong class="total" data-total="${c.total}">${formatAmount(c.total)} ${c.currency}</strong> <span class="muted">over ${c.days.length} days with sales, ${c.orders} orders</span></figcaption>${salesChart(c, sales.first, sales.last)}</figure>`)
  const empty = html`<p class="empty">No sales from ${sales.first} to ${sales.last}${sales.latestDay === null ? "" : html` (the latest day with sales is ${sales.latestDay})`}.</p>`
  const which = sales.chosen
    ? `the range the URL sets (?from=${sales.first}&to=${sales.last})`
    : sales.latestDay === null ? `the last ${CHART_DAYS} days (no sales yet)` : `the last ${CHART_DAYS} days with sales, to ${sales.latestDay}`
  return html`<section id="sales" data-first="${sales.first}" data-last="${sales.last}"><h2>Daily net sales, ${sales.first} to ${sales.last}</h2><p class="muted">${which}; per store-local day: orders minus refunds (analytics.daily_net_sales). Any other range: <code>?from=YYYY-MM-DD&amp;to=YYYY-MM-DD</code>, at most ${MAX_CHART_DAYS} days.</p>${salesNavigation(sales)}${charts.length === 0 ? empty : charts}</section>`
}

const productName = (p: TopProduct) => p.name ?? (p.product_id === "0" ? "lines that name no product" : `product ${p.product_id}`)

/** A table per currency with sales of products over the chart's days (money is never summed across currencies). */
const topProductsSection = (sales: SalesWindow, products: ReadonlyArray<TopProduct>): Html => {
  const currencies = [...new Set(products.map((p) => p.currency))]
  const tables = currencies.map((currency) =>
    html`<table class="top-products" data-currency="${currency}"><caption>${currency}</caption><thead><tr><th>#</th><th>product</th><th>units sold</th><th>gross</th><th>refunded</th><th>net</th></tr></thead><tbody>${
      products.filter((p) => p.currency === currency).map((p, i) =>
        html`<tr data-product="${p.product_id}" data-variation="${p.variation_id}"><td>${i + 1}</td><td>${productName(p)}</td><td>${p.quantity}</td><td>${formatAmount(p.gross)}</td><td>${formatAmount(p.refunded)}</td><td>${formatAmount(p.net)}</td></tr>`)
    }</tbody></table>`)
  return html`<section id="top-products"><h2>Top products, ${sales.first} to ${sales.last}</h2><p class="muted">The ${TOP_PRODUCTS} products and variations with the most net sales in each currency over the chart's days: units sold and line totals (after discounts, tax excluded) on their order's day, refunded on the refund's day (analytics.daily_product_sales).</p>${
    tables.length === 0 ? html`<p class="empty">No product sold or refunded from ${sales.first} to ${sales.last}.</p>` : tables
  }</section>`
}

const streamRow = (s: StreamHealth) => [
  html`<span class="stream">${s.status.stream}</span>`, badge(s.health), s.status.last_success ?? "never", s.status.last_started ?? "",
  s.status.last_rows ?? "", s.status.rows, s.status.cursor, s.status.last_error
]

const STREAM_HEADERS = ["stream", "state", "last success (UTC)", "last started (UTC)", "rows last run", "rows held", "cursor", "last error"]

const streamsSection = (streams: ReadonlyArray<StreamHealth>): Html => {
  const main = streams.filter((s) => s.isStream)
  const parts = streams.filter((s) => !s.isStream)
  const unavailable = main.flatMap((s) => Option.match(s.unavailable, { onNone: () => [], onSome: (u) => [[s.status.stream, u.reason, new Date(u.checkedAt * 1000).toISOString()]] }))
  return html`<section id="streams"><h2>Streams</h2>${main.length === 0 ? html`<p class="empty">No stream has run yet: run <code>shopsync sync</code>.</p>` : table(STREAM_HEADERS, main.map(streamRow), "streams")}${
    unavailable.length === 0 ? "" : html`<h3>Unavailable streams</h3><p class="muted">The store does not serve these (or not to this key); they are checked again later.</p>${table(["stream", "reason", "checked"], unavailable, "unavailable")}`
  }${parts.length === 0 ? "" : html`<details><summary>Trash listings and deletion checks (${parts.length})</summary>${table(STREAM_HEADERS, parts.map(streamRow))}</details>`}</section>`
}

const runsSection = (runs: ReadonlyArray<RecentRun>) =>
  html`<section id="runs"><h2>Recent runs</h2>${runs.length === 0 ? html`<p class="empty">No run yet.</p>` : table(
    ["run", "command", "status", "started (UTC)", "seconds", "rows", "requests", "error"],
    runs.map((r) => [r.run, r.command, html`<span class="run-${r.status}">${r.outcome}</span>`, r.started, r.seconds, r.rows, r.requests, r.error])
  )}</section>`

const rejectedTotal = (w: WebhookSummary) => w.rejected.reduce((n, r) => n + r.count, 0)

/** The inbox's figures, then what the listener refused (never stored, so only this process knows): per cause, with the fix. */
const webhooksSection = (w: WebhookSummary) =>
  html`<section id="webhooks"><h2>Webhook deliveries</h2>${table(["received", "applied", "failed", "waiting", "last received"],
    [[w.received, w.applied, w.failed, w.pending, w.lastReceivedAt ?? "never"]])}<h3>Rejected since this process started</h3>${
    w.rejected.length === 0
      ? html`<p class="empty">None: every delivery that reached the listener was signed and stored.</p>`
      : html`<p class="muted">Refused before the inbox (shopsync_webhook_rejections_total on /metrics).</p><table class="rejections"><thead><tr><th>cause</th><th>deliveries</th><th>what to do</th></tr></thead><tbody>${
        w.rejected.map((r) => html`<tr data-cause="${r.cause}"><td>${REJECTIONS[r.cause].what}</td><td class="count">${r.count}</td><td>${REJECTIONS[r.cause].fix}</td></tr>`)
      }</tbody></table>`
  }</section>`

const contactsSection = (counts: OutboxCounts, problems: ReadonlyArray<OutboxProblem>) =>
  html`<section id="contacts"><h2>Marketing contacts</h2>${table(["pending", "sent", "failed", "quarantined", "oldest pending for"],
    [[counts.pending, counts.sent, counts.failed, counts.quarantined, counts.oldest_pending_age || "—"]])}${
    problems.length === 0 ? "" : table(["status", "reason", "contacts", "examples"], problems.map((p) => [p.status, p.reason, p.contacts, p.examples]))
  }</section>`

const quarantineSection = (held: ReadonlyArray<HeldRow>) =>
  html`<section id="quarantine"><h2>Quarantined records</h2>${held.length === 0
    ? html`<p class="empty">None: every document the store sent was stored.</p>`
    : table(["stream", "id", "kind", "reason", "attempts", "first seen (UTC)"], held.map((h) => [h.stream, h.id, h.kind, h.reason, h.attempts, h.first_seen]))
  }</section>`

/** The whole page: no script, no external resource (the icon and the style are inline), refreshed every minute. */
export const statusPage = (r: StatusReport): Html =>
  html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="60"><link rel="icon" href="data:,">
<title>shopsync · ${r.storeId}</title><style>${STATUS_CSS}</style></head>
<body><header><h1>shopsync <span class="muted">store</span> ${r.storeId}</h1><p class="muted">As of ${r.generatedAt.slice(0, 19).replace("T", " ")} UTC · refreshes every minute</p></header>
<main>${summary(r)}${salesSection(r.sales)}${topProductsSection(r.sales, r.topProducts)}${streamsSection(r.streams)}${runsSection(r.runs)}${webhooksSection(r.webhooks)}${contactsSection(r.outbox, r.problems)}${quarantineSection(r.held)}</main></body></html>`
