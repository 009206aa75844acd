import { describe, expect, it } from "vitest"
import { html } from "../../src/server/html.js"
import { maskEmails } from "../../src/warehouse/personal-data.js"
import { rejectedDoc } from "../../src/warehouse/screen.js"

describe("e-mail addresses on the pages", () => {
  it("are masked after their first character, their domain kept, also when cut short", () => {
    expect(maskEmails(`Expected string, actual "alice.private@example.org"`)).toBe(`Expected string, actual "a***@example.org"`)
    expect(maskEmails("billing: bob+shop@mail.example.co.uk, carol.x@")).toBe("billing: b***@mail.example.co.uk, c***@")
    expect(maskEmails("no address here: 12 @ 3")).toBe("no address here: 12 @ 3")
  })

  it("print masked from any value the page interpolates", () => {
    expect(html`<td>${"alice.private@example.org"}</td>`.text).toBe("<td>a***@example.org</td>")
  })

  it("are masked in a quarantined document's reason, the document kept whole", () => {
    const doc = { id: 7, billing: { email: "alice.private@example.org" } }
    const held = rejectedDoc("orders", doc, "invalid", "billing.email: expected a date, got \"alice.private@example.org\"")
    expect(held.reason).toBe("billing.email: expected a date, got \"a***@example.org\"")
    expect(JSON.parse(held.doc)).toEqual(doc)
  })
})
