import { describe, expect, it } from "vitest"
import { spans } from "../../src/sync/streams/reports.js"

describe("report request spans", () => {
  it("groups changed days into requests of at most 90 days, leaving long gaps unrequested", () => {
    expect(spans([])).toEqual([])
    expect(spans(["2026-01-01", "2026-01-05", "2026-03-31"])).toEqual([{ first: "2026-01-01", last: "2026-03-31" }])
    expect(spans(["2026-01-01", "2026-04-01", "2026-04-02", "2027-01-10"])).toEqual([
      { first: "2026-01-01", last: "2026-01-01" },
      { first: "2026-04-01", last: "2026-04-02" },
      { first: "2027-01-10", last: "2027-01-10" }
    ])
  })
})
