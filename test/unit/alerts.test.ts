// The alerts' pure parts: the scrubber, the freshness state machine, the receiver URL's checks.
import { describe, expect, it } from "vitest"
import { alertUrlProblem } from "../../src/config/settings.js"
import { scrub } from "../../src/jobs/alert-payload.js"
import { type Freshness, transition } from "../../src/jobs/freshness-watch.js"

describe("scrub", () => {
  it("takes credentials out of whatever a store, a proxy or a driver echoed", () => {
    const text = "the store rejected the consumer key (401: Invalid signature for GET /wp-json/wc/v3/orders?" +
      "oauth_consumer_key=ck_0123456789abcdef&oauth_nonce=abc&oauth_signature=Zm9vYmFy%3D&consumer_secret=cs_zzz&per_page=100) " +
      "on postgres://shopsync:hunter2@db.internal/shopsync, Authorization: Bearer eyJhbGciOi.x.y; mail Alice.Smith@example.org"
    const out = scrub(text)
    for (const leaked of ["ck_0123456789abcdef", "Zm9vYmFy", "cs_zzz", "hunter2", "eyJhbGciOi", "Alice.Smith"]) expect(out).not.toContain(leaked)
    expect(out).toContain("oauth_signature=***")
    expect(out).toContain("per_page=100")
    expect(out).toContain("postgres://***@db.internal/shopsync")
    expect(out).toContain("Bearer ***")
    expect(out).toContain("A***@example.org")
  })

  it("replaces the given secrets wherever they appear, folds lines and bounds the length", () => {
    expect(scrub("key plainsecretvalue in\nthe text", ["plainsecretvalue"])).toBe("key *** in the text")
    expect(scrub("x".repeat(5000))).toHaveLength(1000)
  })
})

describe("freshness transitions", () => {
  /** The alerts a sequence of looks makes, starting with none in this process. */
  const alerts = (looks: ReadonlyArray<Freshness>) => {
    let before: Freshness | undefined
    return looks.flatMap((now) => {
      const event = transition(before, now)
      before = now
      return event === undefined ? [] : [event]
    })
  }

  it("alerts once when a store stops being current and once when it recovers, not at every look", () => {
    expect(alerts(["current", "current", "stale", "stale", "stale", "current", "current"])).toEqual(["stale", "recovered"])
    expect(alerts(["current", "stale", "current", "stale", "current"])).toEqual(["stale", "recovered", "stale", "recovered"])
  })

  it("a store already stale at the first look alerts once; current at the first look says nothing", () => {
    expect(alerts(["stale", "stale", "current"])).toEqual(["stale", "recovered"])
    expect(alerts(["current"])).toEqual([])
  })
})

describe("the receiver's URL", () => {
  it("https anywhere, http on loopback only unless allowed; the URL never in the message", () => {
    expect(alertUrlProblem("V", "https://hooks.slack.com/services/T/B/secret", false)).toBeUndefined()
    expect(alertUrlProblem("V", "http://127.0.0.1:9000/hook", false)).toBeUndefined()
    expect(alertUrlProblem("V", "http://[::1]:9000/hook", false)).toBeUndefined()
    expect(alertUrlProblem("V", "http://alerts.internal/hook", true)).toBeUndefined()
    const plain = alertUrlProblem("V", "http://alerts.internal/hook/secret", false)
    expect(plain).toContain("SHOPSYNC_ALERT_ALLOW_HTTP=1")
    expect(plain).toContain("alerts.internal")
    expect(plain).not.toContain("secret")
    expect(alertUrlProblem("V", "ftp://x/secret", false)).toContain("V must be an http(s) URL")
    expect(alertUrlProblem("V", "not a url", false)).not.toContain("not a url")
  })
})
