import { describe, expect, it } from "vitest"
import { backoffMs, retryAfterMs, safeUrl } from "../../src/store-client/client.js"

const policy = { maxAttempts: 8, baseDelayMs: 500, maxDelayMs: 30_000, timeoutMs: 1000 }

describe("retry policy", () => {
  it("grows exponentially, with jitter between half and the full step, capped", () => {
    expect(backoffMs(policy, 0, 0, 0)).toBe(250)
    expect(backoffMs(policy, 0, 0, 1)).toBe(500)
    expect(backoffMs(policy, 3, 0, 1)).toBe(4000)
    expect(backoffMs(policy, 20, 0, 1)).toBe(30_000)
  })

  it("never waits less than the server's Retry-After", () => {
    expect(backoffMs(policy, 0, 7000, 0.3)).toBe(7000)
    expect(retryAfterMs({ "retry-after": "3" }, 0)).toBe(3000)
    expect(retryAfterMs({ "retry-after": new Date(10_000).toUTCString() }, 4000)).toBe(6000)
    expect(retryAfterMs({ "ratelimit-retry-after": "2" }, 0)).toBe(2000)
    expect(retryAfterMs({}, 0)).toBe(0)
  })

  it("strips credentials from URLs shown in errors", () => {
    const shown = safeUrl("https://u:p@shop.test/wp-json/wc/v3/orders?consumer_key=ck_1&consumer_secret=cs_2&page=2")
    expect(shown).not.toContain("cs_2")
    expect(shown).not.toContain("ck_1")
    expect(shown).not.toContain("u:p@")
    expect(shown).toContain("page=2")
  })
})
