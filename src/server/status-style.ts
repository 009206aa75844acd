import { Html } from "./html.js"

/** The status page's style, inline so the page makes no request besides itself. */
export const STATUS_CSS = new Html(`
:root { color-scheme: light; --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --muted: #57606a; --line: #d0d7de; --bar: #0969da; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328; background: #f6f8fa; }
header { padding: 16px 24px 8px; background: #fff; border-bottom: 1px solid var(--line); }
h1 { margin: 0; font-size: 22px; } h2 { margin: 0 0 8px; font-size: 18px; } h3 { margin: 16px 0 6px; font-size: 15px; }
main { padding: 16px 24px 32px; max-width: 1280px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 16px; margin-bottom: 16px; overflow-x: auto; }
.muted { color: var(--muted); font-weight: normal; }
.empty { color: var(--muted); font-style: italic; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(200px, 1fr)); gap: 12px; background: none; border: 0; padding: 0; }
.card { background: #fff; border: 1px solid var(--line); border-left: 6px solid var(--line); border-radius: 8px; padding: 10px 14px; }
.card.good { border-left-color: var(--ok); } .card.bad { border-left-color: var(--bad); }
.card-title { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.card-value { font-size: 22px; font-weight: 600; } .card-note { color: var(--muted); font-size: 12px; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #f6f8fa; font-weight: 600; white-space: nowrap; }
td { overflow-wrap: anywhere; }
table.streams td:nth-child(-n+6), table.unavailable td:first-child, .stream { white-space: nowrap; overflow-wrap: normal; }
.badge { display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 12px; font-weight: 600; color: #fff; white-space: nowrap; }
.badge.ok { background: var(--ok); } .badge.failing { background: var(--bad); } .badge.unavailable { background: var(--muted); }
.badge.running, .badge.never-succeeded { background: var(--warn); }
.run-failed { color: var(--bad); font-weight: 600; } .run-succeeded { color: var(--ok); }
figure.chart { margin: 0 0 20px; } figcaption { margin-bottom: 4px; font-size: 15px; }
.currency { font-weight: 700; } .total { font-size: 17px; }
svg.sales-chart { width: 100%; height: auto; max-width: 900px; display: block; }
svg.sales-chart text { font-size: 11px; fill: var(--muted); }
svg.sales-chart .axis-title { font-size: 12px; font-weight: 600; fill: #1f2328; }
svg.sales-chart line { stroke: var(--line); } svg.sales-chart line.zero, svg.sales-chart .x-axis line { stroke: #8c959f; }
svg.sales-chart .bar { fill: var(--bar); } svg.sales-chart .bar.negative { fill: var(--bad); }
svg.sales-chart .bar:hover { opacity: .75; }
table.top-products { margin-bottom: 16px; } table.top-products caption { text-align: left; font-weight: 700; padding: 4px 0; }
table.top-products :is(th, td):nth-child(n+3) { text-align: right; white-space: nowrap; }
nav.range { margin: 0 0 12px; font-size: 13px; }
details { margin-top: 12px; } summary { cursor: pointer; color: var(--muted); }
`)
