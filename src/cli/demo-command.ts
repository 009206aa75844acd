import { Command, Options } from "@effect/cli"
import { Clock, ConfigProvider, Data, Effect, Layer, Logger, LogLevel, Option, Redacted } from "effect"
import { marketingSettingsConfig, type StoreSettings } from "../config/settings.js"
import { STREAMS } from "../sync/catalogue.js"
import { DatabaseLive } from "../warehouse/database.js"
import { StoreJobs, verdict } from "../jobs/store-jobs.js"
import { dailyNetSalesTable, netSalesText, type NetSalesRow, say, syncLine } from "./demo-output.js"
import { shopsyncCommand } from "./invocation.js"
import { endsAtOption, untilOption } from "./until-option.js"

const STORE_ID = "demo"
const DEMO_DAYS = 45
const DEMO_TIMEZONE = "America/New_York"
const orders = Options.integer("orders").pipe(Options.withPseudoName("COUNT"), Options.withDescription("orders in the generated demo store (default: 2000)"), Options.withDefault(2000))
const seed = Options.integer("seed").pipe(Options.withPseudoName("NUMBER"), Options.withDescription("generator seed (default: 7)"), Options.withDefault(7))
const until = untilOption(DEMO_DAYS)

/** The simulators load only when the demo runs: every other command starts without them (about 30 MB less). */
const simulators = Effect.promise(() =>
  Promise.all([import("../simulator/store/index.js"), import("../simulator/marketing/index.js")]).then(([store, marketing]) => ({ ...store, ...marketing }))
)

/** The demo's figures disagree with the simulator's own: the one thing the demo exists to show cannot be shown. */
class DemoMismatch extends Data.TaggedError("DemoMismatch")<{ readonly message: string }> {}

/**
 * The marketing simulator's settings, read as a deployment's are, so the demo passes the same checks; it listens on
 * plain http, which only MARKETING_ALLOW_HTTP=1 accepts.
 */
const demoMarketingSettings = (baseUrl: string) =>
  Effect.withConfigProvider(marketingSettingsConfig, ConfigProvider.fromMap(new Map([
    ["MARKETING_BASE_URL", baseUrl],
    ["MARKETING_CLIENT_ID", "mk_demo"],
    ["MARKETING_CLIENT_SECRET", "mk_secret"],
    ["MARKETING_ALLOW_HTTP", "1"],
    ["MARKETING_MAX_ATTEMPTS", "5"],
    ["MARKETING_REQUEST_TIMEOUT_MS", "30000"]
  ])))

/** The demo runs its own narrative on a terminal: only warnings and errors are logged between its lines. */
const quietOnTerminal = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  process.stderr.isTTY === true && process.env.SHOPSYNC_DEBUG !== "1" ? Logger.withMinimumLogLevel(effect, LogLevel.Warning) : effect

/** Syncs the simulator's store into the warehouse as store "demo", from empty (rows, cursors, outbox); its summary. */
const syncDemoStore = (apiUrl: string) =>
  Effect.gen(function*() {
    const settings: StoreSettings = {
      apiUrl,
      consumerKey: Redacted.make("ck_demo"),
      consumerSecret: Redacted.make("cs_demo"),
      storeId: STORE_ID,
      perPage: 100,
      settleSeconds: 0,
      maxAttempts: 5,
      requestTimeoutMs: 30_000,
      concurrency: 4,
      // Signed, as over any plain-http store; chosen here, so there is nothing to warn about.
      auth: "oauth1"
    }
    const jobs = yield* StoreJobs
    // The demo store starts empty each time, so its figures are those of this simulator alone.
    yield* jobs.reset(STORE_ID)
    const report = yield* jobs.sync({ storeId: STORE_ID, settings, marketing: Option.none() }, {
      streams: STREAMS, mode: { kind: "sync" }, waitForLock: true, named: false
    }, "none")
    const failed = verdict(report)
    if (Option.isSome(failed)) return yield* failed.value
    return report._tag === "Ran" ? report.summary : undefined
  })

/** The contact push to a marketing simulator that starts empty (as the demo store's outbox does); its line. */
const pushDemoContacts = Effect.gen(function*() {
  const { startMarketingSimulator } = yield* simulators
  const marketing = yield* Effect.acquireRelease(Effect.promise(() => startMarketingSimulator()), (m) => Effect.promise(() => m.close()))
  const pushed = (yield* (yield* StoreJobs).push(STORE_ID, yield* demoMarketingSettings(marketing.baseUrl))).result
  const contacts = marketing.state.listContacts().length
  const expected = pushed.derived - pushed.outbox.quarantined
  if (contacts !== expected) {
    return yield* new DemoMismatch({ message: `the marketing simulator holds ${contacts} contacts, the warehouse derives ${expected}` })
  }
  yield* say(`contacts: ${contacts} pushed to a marketing simulator (${pushed.created} created, ${pushed.updated} updated, ` +
    `${pushed.unchanged} unchanged) in ${pushed.requests} requests`)
})

/** The commands to try next, written as this CLI was started (npx, npm run or on the PATH), so they run as printed. */
const next = () => {
  const shopsync = shopsyncCommand()
  const pad = (command: string) => command.padEnd(44)
  return [
    "next:",
    `  ${pad(`STORE_ID=demo ${shopsync} status`)}the demo store's streams, cursors and runs`,
    `  ${pad(`${shopsync} warehouse start`)}keep the warehouse up for psql or a BI tool (docs/analytics.md)`,
    `  ${pad(`${shopsync} check`)}your own store, with STORE_API_URL, STORE_CONSUMER_KEY and _SECRET set`
  ].join("\n")
}

/** The simulator, the sync, the table checked against the simulator's figures, the push. */
const demo = (o: { readonly orders: number; readonly seed: number; readonly until: Option.Option<string> }) =>
  Effect.gen(function*() {
    const { dailyNetSales, endOfUntil, SiteTime, startStoreSimulator } = yield* simulators
    const now = yield* Clock.currentTimeMillis
    const ends = yield* endsAtOption(o.until, (text) => endOfUntil(text, new SiteTime(DEMO_TIMEZONE), now))
    const sim = yield* Effect.acquireRelease(
      Effect.promise(() => startStoreSimulator({ data: { seed: o.seed, orders: o.orders, days: DEMO_DAYS, ...ends }, timezone: DEMO_TIMEZONE })),
      (s) => Effect.promise(() => s.close())
    )
    yield* Effect.logInfo(`demo: store simulator with ${o.orders} orders at ${sim.url}`)
    const summary = yield* syncDemoStore(sim.url)
    if (summary) yield* say(syncLine(summary))

    const table = yield* dailyNetSalesTable(STORE_ID)
    yield* say(`\n${yield* netSalesText(STORE_ID, table)}`)

    const line = (r: NetSalesRow) => `${r.day} ${r.currency} ${r.orders_count} ${r.gross_sales} ${r.refunds} ${r.net_sales}`
    const expected = dailyNetSales(sim.state).map(line)
    const actual = table.map(line)
    const same = expected.length === actual.length && expected.every((row, i) => row === actual[i])
    yield* say(same
      ? `\nverdict: every one of the ${actual.length} rows matches the simulator's own computation`
      : `\nverdict: DIFFERS from the simulator's own computation (${expected.length} rows expected, ${actual.length} in the warehouse)`)
    if (!same) return yield* new DemoMismatch({ message: "the warehouse's daily net sales differ from the simulator's own computation" })

    yield* pushDemoContacts
  }).pipe(Effect.scoped, Effect.provide(StoreJobs.Default.pipe(Layer.provideMerge(DatabaseLive))))

export const demoCommand = Command.make("demo", { orders, seed, until }, (o) =>
  Effect.gen(function*() {
    // Said first: starting the warehouse the first time takes seconds.
    yield* say(`shopsync demo: a simulated store with ${o.orders.toLocaleString("en-US")} orders over ${DEMO_DAYS} days, synced into the ` +
      "warehouse (embedded PostgreSQL unless DATABASE_URL is set) and checked against the simulator's own figures")
    yield* demo(o)
    yield* say(`\n${next()}`)
  }).pipe(quietOnTerminal)).pipe(
    Command.withDescription(
      "Shows shopsync end to end on a simulated store, in store id \"demo\". Starts the store simulator and the warehouse (embedded PostgreSQL unless DATABASE_URL is set), runs a full sync " +
        "into store id \"demo\" and prints analytics.daily_net_sales (its first and last days and the totals per currency), checked " +
        "row by row against the simulator's own computation; then pushes the derived contacts to a marketing simulator. On a " +
        "terminal it logs only warnings; elsewhere the JSON log lines as every command."
    )
  )
