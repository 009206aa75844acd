// Generated data that ends at a given instant (`simulate store --until today`, `demo --until today`): the created
// dates fill the days ending then, and nothing in the store (a completion, a refund, an edit, a review) is dated
// at or after it, since a sync reads nothing past the store's clock.
import { describe, expect, it } from "vitest"
import { endOfUntil, generate, SiteTime } from "../../../src/simulator/store/index.ts"

const TZ = "America/New_York"
const site = new SiteTime(TZ)
/** 10:00 in New York on 2026-11-26. */
const NOW = Date.parse("2026-11-26T15:00:00Z") / 1000
const localDay = (utc: number) => site.local(utc).slice(0, 10)

describe("store simulator: data ending at an instant", () => {
  const data = generate({ seed: 5, orders: 2000, days: 45, endsAt: NOW }, TZ)

  it("dates nothing at or after the end", () => {
    const instants = [
      ...data.orders.flatMap((o) => [o.created, o.modified, o.paid, o.completed]),
      ...data.refunds.map((r) => r.created),
      ...data.customers.flatMap((c) => [c.created, c.modified]),
      ...data.products.flatMap((p) => [p.created, p.modified]),
      ...(data.reviews ?? []).map((r) => r.created),
      ...(data.notes ?? []).map((n) => n.created)
    ]
    expect(Math.max(...instants)).toBeLessThan(NOW)
    expect(data.refunds.length).toBeGreaterThan(100)
  })

  it("spreads the orders over the 45 local days ending with the end's day, that day included", () => {
    const days = new Set(data.orders.map((o) => localDay(o.created)))
    expect([...days].sort()[0]).toBe("2026-10-13")
    expect([...days].sort().at(-1)).toBe("2026-11-26")
    expect(days.size).toBe(45)
  })

  it("leaves what would come later under way: no order completed after the end, some still processing", () => {
    const recent = data.orders.filter((o) => o.created > NOW - 2 * 86400)
    expect(recent.some((o) => o.status === "processing")).toBe(true)
    expect(data.orders.filter((o) => o.status === "completed").every((o) => o.completed < NOW)).toBe(true)
  })

  it("is deterministic, and refuses a start beside the end", () => {
    expect(generate({ seed: 5, orders: 2000, days: 45, endsAt: NOW }, TZ)).toEqual(data)
    expect(() => generate({ seed: 5, orders: 10, start: "2024-01-01", endsAt: NOW }, TZ)).toThrow(/start or endsAt/)
  })

  it("reads --until: today is now, a past day its local end, anything else a message", () => {
    const nowMs = NOW * 1000
    expect(endOfUntil("today", site, nowMs)).toBe(NOW)
    expect(endOfUntil("2026-11-26", site, nowMs)).toBe(NOW)
    expect(endOfUntil("2026-11-25", site, nowMs)).toBe(Date.parse("2026-11-26T05:00:00Z") / 1000)
    expect(endOfUntil("2026-11-27", site, nowMs)).toMatch(/after today \(2026-11-26 in America\/New_York\)/)
    expect(endOfUntil("2026-02-30", site, nowMs)).toMatch(/today or a day written YYYY-MM-DD/)
    expect(endOfUntil("'; DROP TABLE x; --" + "x".repeat(500), site, nowMs)).toHaveLength(`--until must be today or a day written YYYY-MM-DD, got ""`.length + 40)
  })
})
