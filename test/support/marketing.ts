// A store simulator synced into a fresh warehouse (the harness), a marketing simulator, and the real
// marketing client and push between them, over real HTTP.
import type { SqlClient } from "@effect/sql"
import { Cause, Clock, Effect, Exit, Layer, Logger, LogLevel, ManagedRuntime, Redacted } from "effect"
import type { MarketingSettings } from "../../src/config/settings.js"
import { HttpClientsLive } from "../../src/http-client/clients.js"
import type { MarketingApi } from "../../src/marketing-client/api.js"
import { type MarketingClient, MarketingLive } from "../../src/marketing-client/client.js"
import type { TokenService } from "../../src/marketing-client/token.js"
import type { RetryPolicy } from "../../src/marketing-client/http.js"
import { Outbox } from "../../src/contacts/outbox.js"
import { pushContacts, type PushResult } from "../../src/contacts/push.js"
import {
  type MarketingSimulator, type MarketingSimulatorOptions, startMarketingSimulator
} from "../../src/simulator/marketing/index.js"
import type { StoreSimulatorOptions } from "../../src/simulator/store/index.js"
import { pgLayer } from "../../src/warehouse/database.js"
import { type Harness, makeHarness, STORE_ID } from "./harness.js"

export { STORE_ID }

export const CLIENT_ID = "mk_demo"
export const CLIENT_SECRET = "mk_secret"

/** Fast retries: the tests count attempts, never time them. */
export const TEST_POLICY: RetryPolicy = { maxAttempts: 6, baseDelayMs: 5, maxDelayMs: 40, timeoutMs: 10_000, maxServerWaitMs: 1_000 }

/** A clock both the simulator and the token service read, moved by hand. */
export const sharedClock = (start = Date.parse("2026-03-01T12:00:00Z")) => {
  let now = start
  return {
    now: () => now,
    advanceSeconds: (s: number) => void (now += s * 1000)
  }
}

/** An Effect Clock that reads `now` and sleeps for real (retry delays still pass). */
export const effectClock = (now: () => number): Clock.Clock => {
  const real = Clock.make()
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: now,
    currentTimeMillis: Effect.sync(now),
    unsafeCurrentTimeNanos: () => BigInt(now()) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(now()) * 1_000_000n),
    sleep: (d) => real.sleep(d)
  }
}

export interface MarketingHarnessOptions {
  readonly store?: StoreSimulatorOptions
  readonly marketing?: MarketingSimulatorOptions
  readonly settings?: Partial<MarketingSettings>
  readonly policy?: Partial<RetryPolicy>
  /** The token service's notion of now (default: the real clock). */
  readonly clientNow?: () => number
}

type Services = MarketingClient | MarketingApi | TokenService | SqlClient.SqlClient | Outbox

export interface MarketingHarness {
  readonly store: Harness
  readonly mk: MarketingSimulator
  readonly settings: MarketingSettings
  /** Every log line (message and annotations) the client and push wrote. */
  readonly logs: string[]
  readonly push: (options?: { retryFailed?: boolean }) => Promise<PushResult>
  readonly pushExit: (options?: { retryFailed?: boolean }) => Promise<Exit.Exit<PushResult, unknown>>
  readonly run: <A, E>(effect: Effect.Effect<A, E, Services>) => Promise<A>
  readonly runExit: <A, E>(effect: Effect.Effect<A, E, Services>) => Promise<Exit.Exit<A, unknown>>
  /** Another client (own token cache and counters) on the same simulator and warehouse. */
  readonly client: (settings?: Partial<MarketingSettings>, policy?: Partial<RetryPolicy>) => {
    readonly run: MarketingHarness["run"]
    readonly runExit: MarketingHarness["runExit"]
    readonly dispose: () => Promise<void>
  }
  /** Contacts of the outbox, for assertions. */
  readonly outbox: () => Promise<Array<{ email: string; status: string; reason: string | null; last_error: string | null; attempts: number; contact_id: string | null }>>
  readonly close: () => Promise<void>
}

export const makeMarketingHarness = async (options: MarketingHarnessOptions = {}): Promise<MarketingHarness> => {
  const store = await makeHarness({ data: { seed: 5, orders: 1000, customers: 200, start: "2026-01-05", days: 40 }, ...options.store })
  const mk = await startMarketingSimulator(options.marketing)
  const settings: MarketingSettings = {
    baseUrl: mk.baseUrl,
    clientId: Redacted.make(CLIENT_ID),
    clientSecret: Redacted.make(CLIENT_SECRET),
    batchSize: 200,
    concurrency: 2,
    maxAttempts: TEST_POLICY.maxAttempts,
    requestTimeoutMs: TEST_POLICY.timeoutMs,
    tokenMarginSeconds: 60,
    ...options.settings
  }
  const logs: string[] = []
  const capture = Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ message, annotations }) => {
      logs.push(`${Array.isArray(message) ? message.join(" ") : String(message)} ${JSON.stringify(Object.fromEntries(annotations))}`)
    })
  )
  const clock = options.clientNow ? effectClock(options.clientNow) : undefined
  const runtimes: Array<ManagedRuntime.ManagedRuntime<Services, unknown>> = []
  const makeRun = (s: MarketingSettings, policy: RetryPolicy) => {
    const runtime = ManagedRuntime.make(Layer.mergeAll(
      MarketingLive(s, policy).pipe(Layer.provide(HttpClientsLive)),
      Outbox.Default.pipe(Layer.provideMerge(pgLayer(Redacted.make(store.dbUrl)))),
      capture,
      Logger.minimumLogLevel(LogLevel.Debug)
    ))
    runtimes.push(runtime)
    const withClock = <A, E>(effect: Effect.Effect<A, E, Services>) => (clock ? Effect.withClock(effect, clock) : effect)
    return {
      run: <A, E>(effect: Effect.Effect<A, E, Services>) => runtime.runPromise(withClock(effect)),
      runExit: <A, E>(effect: Effect.Effect<A, E, Services>): Promise<Exit.Exit<A, unknown>> => runtime.runPromiseExit(withClock(effect)),
      dispose: () => runtime.dispose()
    }
  }
  const main = makeRun(settings, { ...TEST_POLICY, ...options.policy })
  return {
    store,
    mk,
    settings,
    logs,
    push: (o = {}) => main.run(pushContacts({ storeId: STORE_ID, ...o })),
    pushExit: (o = {}) => main.runExit(pushContacts({ storeId: STORE_ID, ...o })),
    run: main.run,
    runExit: main.runExit,
    client: (s = {}, p = {}) => makeRun({ ...settings, ...s }, { ...TEST_POLICY, ...options.policy, ...p }),
    outbox: () => store.rows("SELECT email, status, reason, last_error, attempts, contact_id FROM marketing.outbox WHERE store_id = $1 ORDER BY email", [STORE_ID]),
    close: async () => {
      await Promise.all(runtimes.map((r) => r.dispose()))
      await mk.close()
      await store.close()
    }
  }
}

/** Requests the simulator saw for a path (without query string). */
export const requestsTo = (mk: MarketingSimulator, method: string, path: string) =>
  mk.requests.filter((r) => r.method === method && r.url.split("?")[0] === path)

/** The failure of an exit, for assertions on error tags and messages. */
export const failureOf = (exit: Exit.Exit<unknown, unknown>): { _tag?: string; message?: string } | undefined =>
  Exit.isFailure(exit) ? (Cause.squash(exit.cause) as { _tag?: string; message?: string }) : undefined
