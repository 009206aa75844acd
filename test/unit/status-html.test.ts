import { describe, expect, it } from "vitest"
import { escapeHtml, formatAmount, html } from "../../src/server/html.js"

describe("the status page's HTML helpers", () => {
  it("print amounts from their numeric text, grouped by thousands, never through a float", () => {
    expect(formatAmount("1234567.5")).toBe("1,234,567.50")
    expect(formatAmount("-12345.67")).toBe("-12,345.67")
    expect(formatAmount("0")).toBe("0.00")
    expect(formatAmount("999.99")).toBe("999.99")
    expect(formatAmount("90071992547409931.01")).toBe("90,071,992,547,409,931.01")
  })

  it("escape every interpolated value but the HTML they build themselves", () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe("&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;")
    const cell = html`<td>${"<b>"}</td>`
    expect(html`<tr>${[cell, cell]}${null}${3}</tr>`.text).toBe("<tr><td>&lt;b&gt;</td><td>&lt;b&gt;</td>3</tr>")
  })
})
