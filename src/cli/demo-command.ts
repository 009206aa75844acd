import { Command, Options } from "@effect/cli"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { ConfigProvider, Data, Effect, Layer, Redacted, Schema } from "effect"
import { marketingSettingsConfig } from "../config/settings.js"
import { Outbox, OutboxLive } from "../contacts/outbox.js"
import { pushContacts } from "../contacts/push.js"
import { StoreClientLive } from "../store-client/client.js"
import { runSync } from "../sync/engine.js"
import { STREAMS } from "../sync/catalogue.js"
import { SyncState, SyncStateLive } from "../sync/state.js"
import { DatabaseLive } from "../warehouse/database.js"
import { Loader, LoaderLive } from "../warehouse/loader.js"
import { ProgressLive } from "../jobs/progress.js"
import { marketingLayer } from "../jobs/layers.js"
import { pushed as pushReport } from "../jobs/report.js"
import { printSummary, reportPush } from "./summary.js"
import { formatTable } from "../jobs/table.js"
import { shopsyncCommand } from "./invocation.js"

const STORE_ID = "demo"
const orders = Options.integer("orders").pipe(Options.withPseudoName("COUNT"), Options.withDescription("orders in the generated demo store (default: 2000)"), Options.withDefault(2000))
const seed = Options.integer("seed").pipe(Options.withPseudoName("NUMBER"), Options.withDescription("generator seed (default: 7)"), Options.withDefault(7))

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

/** The demo store's rows and cursors, emptied (nothing to empty on a warehouse not migrated yet). */
const resetStore = Effect.all([Effect.flatMap(Loader, (loader) => loader.reset), Effect.flatMap(SyncState, (state) => state.reset)]).pipe(
  Effect.provide(Layer.mergeAll(LoaderLive(STORE_ID), SyncStateLive(STORE_ID))),
  Effect.catchAll(() => Effect.void)
)

const NetSalesRow = Schema.Struct({
  day: Schema.String,
  currency: Schema.String,
  orders_count: Schema.Number,
  gross_sales: Schema.String,
  refunds: Schema.String,
  net_sales: Schema.String
})

/** What a consumer sees in analytics.daily_net_sales for the demo store, money to the cent. */
const dailyNetSalesTable = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql`SELECT day::text AS day, currency, orders_count,
             to_char(gross_sales, 'FM999999999990.00') AS gross_sales, to_char(refunds, 'FM999999999990.00') AS refunds,
             to_char(net_sales, 'FM999999999990.00') AS net_sales
      FROM analytics.daily_net_sales WHERE store_id = ${STORE_ID} ORDER BY day, currency`).pipe(
  Effect.flatMap(Schema.decodeUnknown(Schema.Array(NetSalesRow))),
  Effect.orDie
)

export const demoCommand = Command.make("demo", { orders, seed }, (o) =>
  Effect.gen(function*() {
    const { dailyNetSales, startMarketingSimulator, startStoreSimulator } = yield* simulators
    const sim = yield* Effect.acquireRelease(
      Effect.promise(() => startStoreSimulator({ data: { seed: o.seed, orders: o.orders, days: 45 }, timezone: "America/New_York" })),
      (s) => Effect.promise(() => s.close())
    )
    yield* Effect.logInfo(`demo: store simulator with ${o.orders} orders at ${sim.url}`)
    const settings = {
      apiUrl: sim.url,
      consumerKey: Redacted.make("ck_demo"),
      consumerSecret: Redacted.make("cs_demo"),
      storeId: STORE_ID,
      perPage: 100,
      settleSeconds: 0,
      maxAttempts: 5,
      requestTimeoutMs: 30_000,
      concurrency: 4
    }
    // The demo store starts empty each time, so its figures are those of this simulator alone.
    yield* resetStore
    const summary = yield* runSync({
      streams: STREAMS, mode: { kind: "sync" }, waitForLock: true, named: false,
      customersFullScanHours: 0, childrenFullPassHours: 0, unavailableRecheckHours: 0, deletionsHours: 0, refreshHours: {}
    }).pipe(
      Effect.provide(Layer.mergeAll(StoreClientLive(settings).pipe(Layer.provide(NodeHttpClient.layerUndici)), ProgressLive(100)))
    )
    if (summary) yield* printSummary(summary)

    const table = yield* dailyNetSalesTable
    process.stdout.write(`\nanalytics.daily_net_sales (store ${STORE_ID})\n${formatTable(table, ["day", "currency", "orders_count", "gross_sales", "refunds", "net_sales"])}\n`)

    const expected = dailyNetSales(sim.state).map((r) => `${r.day} ${r.currency} ${r.orders_count} ${r.gross_sales} ${r.refunds} ${r.net_sales}`)
    const actual = table.map((r) => `${r.day} ${r.currency} ${r.orders_count} ${r.gross_sales} ${r.refunds} ${r.net_sales}`)
    const same = expected.length === actual.length && expected.every((line, i) => line === actual[i])
    process.stdout.write(
      same
        ? `\nmatches the simulator's own computation: ${actual.length} (day, currency) rows\n`
        : `\nDIFFERS from the simulator's own computation (${expected.length} expected rows, ${actual.length} in the warehouse)\n`
    )
    if (!same) return yield* new DemoMismatch({ message: "the warehouse's daily net sales differ from the simulator's own computation" })

    // The contact push, against a marketing simulator that starts empty (so the demo store's outbox does too).
    const marketing = yield* Effect.acquireRelease(
      Effect.promise(() => startMarketingSimulator()),
      (m) => Effect.promise(() => m.close())
    )
    yield* Effect.logInfo(`demo: marketing simulator at ${marketing.baseUrl}`)
    yield* (yield* Outbox).reset(STORE_ID).pipe(Effect.catchAll(() => Effect.void))
    const pushed = yield* pushContacts({ storeId: STORE_ID }).pipe(Effect.provide(marketingLayer(yield* demoMarketingSettings(marketing.baseUrl))))
    process.stdout.write("\n")
    yield* reportPush(pushReport(pushed))
    const contacts = marketing.state.listContacts().length
    const expectedContacts = pushed.derived - pushed.outbox.quarantined
    process.stdout.write(
      `marketing simulator: ${contacts} contacts (${pushed.created} created, ${pushed.updated} updated, ${pushed.unchanged} unchanged) ` +
        `from ${pushed.requests} requests and ${pushed.tokenRequests} token request(s)\n`
    )
    if (contacts !== expectedContacts) {
      return yield* new DemoMismatch({ message: `the marketing simulator holds ${contacts} contacts, the warehouse derives ${expectedContacts}` })
    }
    const shopsync = shopsyncCommand()
    process.stdout.write(
      `\nthe demo's rows are under store id "${STORE_ID}": \`STORE_ID=${STORE_ID} ${shopsync} status\` shows them; ` +
        `\`${shopsync} warehouse start\` keeps the warehouse up for psql or a BI tool (see docs/analytics.md, "Connecting to the warehouse")\n`
    )
  }).pipe(Effect.scoped, Effect.provide(OutboxLive.pipe(Layer.provideMerge(DatabaseLive))))).pipe(
    Command.withDescription(
      "Shows shopsync end to end on a simulated store, in store id \"demo\". Starts the store simulator and the warehouse (embedded PostgreSQL unless DATABASE_URL is set), runs a full sync " +
        "into store id \"demo\" and prints analytics.daily_net_sales, checked against the simulator's own computation; then pushes " +
        "the derived contacts to a marketing simulator and prints how many were created, updated and unchanged."
    )
  )
