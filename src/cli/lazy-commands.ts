/**
 * `shopsync serve` and `shopsync worker`, described here and loaded when run: their HTTP servers, status pages,
 * metrics (the OpenTelemetry metrics SDK and Prometheus exporter) and the worker's @effect/cluster are what no other
 * command needs, and importing them cost every command's start-up (cron's syncs included) a third of a second or more
 * of CPU. serve-command.ts and worker-command.ts hold what each runs.
 */
import { Command } from "@effect/cli"
import { Effect } from "effect"

export const serveCommand = Command.make("serve", {}, () => Effect.flatMap(Effect.promise(() => import("./serve-command.js")), (serve) => serve.start)).pipe(
  Command.withDescription(
    "Keeps the warehouse fresh within seconds until stopped (the mode for a systemd service or a Kubernetes Deployment). " +
      "A webhook listener on SHOPSYNC_HTTP_HOST " +
      "(default 127.0.0.1) and SHOPSYNC_HTTP_PORT (default 8787) that takes the store's signed webhooks at POST /webhooks/store " +
      "(checked against STORE_WEBHOOK_SECRET; subscribe them with `shopsync store-hooks ensure --url …`), stores each in an inbox " +
      "and applies it within a second, only when it is newer than what the warehouse holds; the changed contacts are pushed " +
      "when the marketing variables are set. Every SHOPSYNC_SYNC_EVERY (default 5m; e.g. 90s, 1h) it runs the same sync as " +
      "`shopsync sync`, under the same lock, which catches what a lost or disabled webhook missed. GET /healthz answers 200, or " +
      "503 when the warehouse does not answer, the inbox worker is not running, the oldest pending delivery waited over 10 minutes, " +
      "or no scheduled sync finished for three intervals (the status only: the reason is on the admin listener). A second, " +
      "admin listener on SHOPSYNC_ADMIN_HOST (default 127.0.0.1) and SHOPSYNC_ADMIN_PORT (default 8788) serves GET / (a status " +
      "page: streams, runs, webhook deliveries and the ones rejected per cause, quarantine, daily net sales over the 90 days ending at the " +
      "last day with sales or ?from=YYYY-MM-DD&to=YYYY-MM-DD and their top products; e-mail addresses masked), GET /metrics " +
      "(Prometheus text) and GET /healthz with its reason; off loopback it needs SHOPSYNC_ADMIN_TOKEN (or SHOPSYNC_ADMIN_TOKEN_FILE) " +
      "as Authorization: Bearer, and serve refuses to start without one. SIGTERM: new deliveries get " +
      "503, the one being applied finishes, exit 143; the next start applies what is left in the inbox. With " +
      "SHOPSYNC_ALERT_WEBHOOK_URL (or SHOPSYNC_ALERT_WEBHOOK_URL_FILE; https:// unless on loopback or SHOPSYNC_ALERT_ALLOW_HTTP=1) " +
      "a failed background sync POSTs a JSON alert there, and so does the store's orders data going without a successful run " +
      "for two intervals (once; again once when it recovers)."
  )
)

export const workerCommand = Command.make("worker", {}, () => Effect.flatMap(Effect.promise(() => import("./worker-command.js")), (worker) => worker.worker)).pipe(Command.withDescription(
  "Joins the cluster of workers that keeps the registered stores (`shopsync stores add`) current: each worker is a runner " +
    "of @effect/cluster listening on SHOPSYNC_RUNNER_HOST:SHOPSYNC_RUNNER_PORT (default port 34431; the host is the address " +
    "the other workers reach it at), holding a share of the 300 shards the stores hash to, and syncs its stores at their " +
    "interval, at most SHOPSYNC_RUNNER_CONCURRENCY (default 4) at once. Its webhook listener, SHOPSYNC_HTTP_HOST:SHOPSYNC_HTTP_PORT " +
    "(default 127.0.0.1:8787), takes every registered store's signed webhooks at POST /webhooks/store/<store_id> (checked against " +
    "that store's registered webhook secret; any worker takes any store's delivery, so put a load balancer in front of them " +
    "all) and answers GET /healthz (200 when the warehouse answers and this runner is in the cluster; the status only). Its " +
    "admin listener, SHOPSYNC_ADMIN_HOST:SHOPSYNC_ADMIN_PORT (default 127.0.0.1:8788), serves GET /metrics (Prometheus, the " +
    "stores this worker holds), GET / (every store), GET /stores/<store_id> (one store's page) and GET /healthz with its " +
    "reason; off loopback it needs SHOPSYNC_ADMIN_TOKEN (or _FILE) as Authorization: Bearer. Needs DATABASE_URL (the " +
    "PostgreSQL all workers share) and SHOPSYNC_MASTER_KEY or SHOPSYNC_MASTER_KEY_FILE. The runners' socket is TLS keyed by " +
    "SHOPSYNC_CLUSTER_SECRET or SHOPSYNC_CLUSTER_SECRET_FILE (at least 32 characters, the same for every worker and every " +
    "`stores sync`/`stores backfill`; only a worker whose SHOPSYNC_RUNNER_HOST is loopback may run without, unauthenticated). Start as many as needed, on one " +
    "machine (each with its own SHOPSYNC_RUNNER_PORT, SHOPSYNC_HTTP_PORT and SHOPSYNC_ADMIN_PORT) or many; one that dies has its stores taken " +
    "over by the others within 20 s. SIGTERM: new deliveries get 503, it finishes its running syncs, hands its shards " +
    "over, exits 143. With SHOPSYNC_ALERT_WEBHOOK_URL (or SHOPSYNC_ALERT_WEBHOOK_URL_FILE) a failed store job POSTs a JSON " +
    "alert there, and so does a store whose orders data is no longer current by analytics.freshness (once; again when it recovers)."
))
