import { formatAmount, type Html, html } from "./html.js"
import type { CurrencySales } from "./sales.js"

/**
 * A currency's daily net sales as a server-rendered SVG bar chart: one bar per day with sales (a `<title>` gives
 * its figures on hover), a y axis of amounts with gridlines, a zero line, and a date axis. The figures travel as
 * PostgreSQL's numeric text; only the bars' geometry is computed in floating point.
 */
const WIDTH = 900
const HEIGHT = 240
const MARGIN = { top: 12, right: 12, bottom: 30, left: 76 }
const PLOT_W = WIDTH - MARGIN.left - MARGIN.right
const PLOT_H = HEIGHT - MARGIN.top - MARGIN.bottom
const DAY_MS = 86_400_000
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

const dayIndex = (first: string, day: string) => Math.round((Date.parse(`${day}T00:00:00Z`) - Date.parse(`${first}T00:00:00Z`)) / DAY_MS)
const dayAt = (first: string, index: number) => new Date(Date.parse(`${first}T00:00:00Z`) + index * DAY_MS)
/** A date axis label; with the year when the window crosses one (a chosen range may span three). */
const shortDate = (d: Date, withYear: boolean) => `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}${withYear ? ` ${d.getUTCFullYear()}` : ""}`

/** A step of 1, 2 or 5 times a power of ten giving about `count` intervals over `span`. */
const niceStep = (span: number, count: number) => {
  const raw = span / count
  const power = 10 ** Math.floor(Math.log10(raw))
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw)
  return step ?? 10 * power
}

const tickLabel = (value: number, step: number) => formatAmount(value.toFixed(step >= 1 ? 0 : 2)).replace(/\.00$/, "")

interface Scale {
  readonly ticks: ReadonlyArray<number>
  readonly y: (value: number) => number
}

const yScale = (values: ReadonlyArray<number>): Scale => {
  const low = Math.min(0, ...values)
  const high = Math.max(0, ...values)
  const step = niceStep(high - low || 1, 4)
  const first = Math.floor(low / step)
  const count = Math.max(Math.ceil(high / step) - first, 1)
  // Multiples of the step, so the tick at zero is exactly 0.
  const ticks = Array.from({ length: count + 1 }, (_, i) => (first + i) * step)
  const bottom = ticks[0]!
  const top = ticks[count]!
  return { ticks, y: (value) => MARGIN.top + PLOT_H - ((value - bottom) / (top - bottom)) * PLOT_H }
}

const yAxis = (scale: Scale, currency: string): Html => {
  const step = scale.ticks.length > 1 ? scale.ticks[1]! - scale.ticks[0]! : 1
  return html`<g class="axis y-axis">${scale.ticks.map((t) => {
    const y = scale.y(t).toFixed(1)
    return html`<line class="${t === 0 ? "zero" : "grid"}" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y}" y2="${y}"/><text x="${MARGIN.left - 6}" y="${y}" dy="0.32em" text-anchor="end">${tickLabel(t, step)}</text>`
  })}<text class="axis-title" x="12" y="${MARGIN.top + PLOT_H / 2}" transform="rotate(-90 12 ${MARGIN.top + PLOT_H / 2})" text-anchor="middle">${currency}</text></g>`
}

const xAxis = (first: string, slots: number): Html => {
  const slot = PLOT_W / slots
  const every = Math.max(1, Math.round(slots / 9))
  const marks = Array.from({ length: Math.ceil(slots / every) }, (_, i) => i * every)
  const base = MARGIN.top + PLOT_H
  const withYear = dayAt(first, 0).getUTCFullYear() !== dayAt(first, slots - 1).getUTCFullYear()
  return html`<g class="axis x-axis"><line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${base}" y2="${base}"/>${marks.map((i) => {
    const x = (MARGIN.left + (i + 0.5) * slot).toFixed(1)
    return html`<line x1="${x}" x2="${x}" y1="${base}" y2="${base + 4}"/><text x="${x}" y="${base + 18}" text-anchor="middle">${shortDate(dayAt(first, i), withYear)}</text>`
  })}</g>`
}

/** The chart of one currency over the days `first`..`last`. */
export const salesChart = (sales: CurrencySales, first: string, last: string): Html => {
  const slots = dayIndex(first, last) + 1
  const slot = PLOT_W / slots
  const scale = yScale(sales.days.map((d) => Number(d.net_sales)))
  const zero = scale.y(0)
  const bars = sales.days.map((d) => {
    const top = scale.y(Number(d.net_sales))
    const x = MARGIN.left + dayIndex(first, d.day) * slot + slot * 0.1
    const negative = Number(d.net_sales) < 0
    return html`<rect class="bar${negative ? " negative" : ""}" data-day="${d.day}" data-net="${d.net_sales}" x="${x.toFixed(1)}" y="${Math.min(top, zero).toFixed(1)}" width="${(slot * 0.8).toFixed(1)}" height="${Math.abs(zero - top).toFixed(1)}"><title>${d.day}: net ${formatAmount(d.net_sales)} ${sales.currency}, ${d.orders_count} orders</title></rect>`
  })
  return html`<svg class="sales-chart" data-currency="${sales.currency}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="Daily net sales in ${sales.currency} from ${first} to ${last}: ${formatAmount(sales.total)} in total" xmlns="http://www.w3.org/2000/svg">${yAxis(scale, sales.currency)}${xAxis(first, slots)}<g class="bars">${bars}</g></svg>`
}
