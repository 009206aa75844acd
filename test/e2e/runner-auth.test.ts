// The runner socket of a real `shopsync worker` (issue 20, finding 2): a client built from the cluster's own RPC
// definitions (Runners.Rpcs, msgpack) that reaches SHOPSYNC_RUNNER_HOST:PORT without SHOPSYNC_CLUSTER_SECRET, or with
// another one, gets no Ping answered and its Backfill never runs; the same Backfill from a client holding the secret
// runs and is recorded (so the request itself is one a worker would run). A worker refuses to listen on a routable
// address without a secret, naming the setting.
import * as EntityAddress from "@effect/cluster/EntityAddress"
import * as MachineId from "@effect/cluster/MachineId"
import * as Runners from "@effect/cluster/Runners"
import * as ShardId from "@effect/cluster/ShardId"
import * as Snowflake from "@effect/cluster/Snowflake"
import * as NodeSocket from "@effect/platform-node/NodeSocket"
import * as Headers from "@effect/platform/Headers"
import * as Socket from "@effect/platform/Socket"
import * as RpcClient from "@effect/rpc/RpcClient"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import { type Duration, Effect, Either, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { derivePsk } from "../../src/cluster/cluster-secret.js"
import { makeTlsSocket } from "../../src/cluster/runner-socket.js"
import { startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import { runCli, startCli, stopAll } from "../support/cli.js"
import { freshDatabase, sqlRows } from "../support/database.js"
import { freePort } from "../support/ports.js"
import { waitFor } from "../support/wait.js"

const SECRET = randomBytes(32).toString("base64")
const STORE = "guarded"

describe("the runner socket of shopsync worker", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let sim: StoreSimulator
  let env: Record<string, string>
  let port: number
  let worker: ReturnType<typeof startCli>
  let passed = false

  /** What one client gets from the worker: Ping's answer and a Backfill's reply, each within `wait`, or why not. */
  const attempt = (socket: Socket.Socket, key: string, wait: Duration.DurationInput = "3 seconds") =>
    Effect.gen(function*() {
      const protocol = yield* RpcClient.makeProtocolSocket().pipe(
        Effect.provideService(Socket.Socket, socket),
        Effect.provideService(RpcSerialization.RpcSerialization, RpcSerialization.msgPack)
      )
      const client = yield* Effect.provideService(Runners.makeRpcClient, RpcClient.Protocol, protocol)
      const started = Date.now()
      const ping = yield* Effect.either(Effect.timeout(client.Ping(), wait))
      const pingMs = Date.now() - started
      // A non-persisted request straight to the Store entity, as a socket-only attacker would send it; the worker
      // holds every shard, so shard 1 is its own.
      const backfill = yield* Effect.either(Effect.timeout(client.Effect({
        persisted: false,
        request: {
          _tag: "Request",
          requestId: Snowflake.make({ machineId: MachineId.make(7), sequence: 0, timestamp: Date.now() }),
          address: EntityAddress.make({ shardId: ShardId.make("default", 1), entityType: "Store" as never, entityId: STORE as never }),
          tag: "Backfill",
          payload: { key, since: "2026-01-05", until: "2026-01-10" },
          headers: Headers.empty
        }
      }), "60 seconds"))
      return { ping, pingMs, backfill }
    }).pipe(Effect.scoped, Effect.runPromise)

  const plain = () => Effect.runSync(NodeSocket.makeNet({ host: "127.0.0.1", port, openTimeout: 1000 }))
  const withSecret = (secret: string) =>
    Effect.runSync(makeTlsSocket({ host: "127.0.0.1", port, psk: derivePsk(Redacted.make(secret)) }))
  const backfills = async () =>
    (await sqlRows<{ status: string }>(db.url, "SELECT status FROM sync.runs WHERE store_id = $1 AND command = 'backfill'", [STORE]))
      .map((r) => r.status)

  beforeAll(async () => {
    db = await freshDatabase()
    sim = await startStoreSimulator({ consumerKey: "ck_g", consumerSecret: "cs_g", data: { seed: 5, orders: 20, start: "2026-01-05", days: 10 } })
    env = { DATABASE_URL: db.url, SHOPSYNC_MASTER_KEY: randomBytes(32).toString("base64"), SHOPSYNC_CLUSTER_SECRET: SECRET }
    const added = await runCli(["stores", "add", STORE, "--url", sim.url, "--key", "ck_g", "--secret-env", "SHOP_SECRET", "--every", "1h"],
      { ...env, SHOP_SECRET: "cs_g" })
    expect(added.code, added.stderr).toBe(0)
    port = await freePort()
    worker = startCli(["worker"], {
      ...env, SHOPSYNC_RUNNER_HOST: "127.0.0.1", SHOPSYNC_RUNNER_PORT: String(port), SHOPSYNC_HTTP_PORT: String(await freePort()),
      SHOPSYNC_ADMIN_PORT: String(await freePort())
    })
    await waitFor("the worker holding every shard", async () =>
      /holds 300 of 300 shards/.test(worker.output().stderr) ? true : undefined, 60_000)
  }, 90_000)
  afterAll(async () => {
    await stopAll([worker], 20_000)
    if (!passed) console.log(worker?.output().stderr.slice(-6000))
    await sim?.close()
    await db?.drop()
  })

  it("answers nothing to a client without the secret, and runs nothing it sends", async () => {
    const got = await attempt(plain(), "no-secret")
    expect(Either.isLeft(got.ping), "Ping answered without credentials").toBe(true)
    expect(Either.isLeft(got.backfill), "Backfill answered without credentials").toBe(true)
    expect(await backfills()).toEqual([])
    expect(worker.output().stderr).toMatch(/refused a connection from 127\.0\.0\.1:\d+ that did not authenticate/)
  })

  it("answers nothing to a client with another secret, and runs nothing it sends", async () => {
    const got = await attempt(withSecret(randomBytes(32).toString("base64")), "wrong-secret")
    expect(Either.isLeft(got.ping), "Ping answered with a wrong secret").toBe(true)
    expect(Either.isLeft(got.backfill), "Backfill answered with a wrong secret").toBe(true)
    expect(await backfills()).toEqual([])
  })

  it("runs the same request from a client holding the secret, and `stores sync` goes through", async () => {
    const got = await attempt(withSecret(SECRET), "right-secret")
    expect(Either.isRight(got.ping), "Ping with the secret").toBe(true)
    console.log(`runner socket: Ping over TLS-PSK answered ${got.pingMs} ms after the client started (handshake included)`)
    expect(Either.isRight(got.backfill), String(Either.isLeft(got.backfill) && got.backfill.left)).toBe(true)
    expect(await backfills()).toEqual(["succeeded"])

    const sync = await runCli(["stores", "sync", STORE], env)
    expect(sync.code, sync.stderr).toBe(0)
    expect(sync.stdout).toContain(`ran on worker 127.0.0.1:${port}`)
    passed = true
  })

  it("refuses to listen on a routable address without a secret, and a short secret, saying what to set", async () => {
    const { SHOPSYNC_CLUSTER_SECRET: _, ...noSecret } = env
    const routable = await runCli(["worker"], { ...noSecret, SHOPSYNC_RUNNER_HOST: "10.0.0.5" })
    expect(routable.code).toBe(1)
    expect(routable.stderr).toContain("the runner would listen on 10.0.0.5:34431 (SHOPSYNC_RUNNER_HOST)")
    expect(routable.stderr).toContain("Set SHOPSYNC_CLUSTER_SECRET (or SHOPSYNC_CLUSTER_SECRET_FILE")
    const short = await runCli(["worker"], { ...env, SHOPSYNC_RUNNER_HOST: "10.0.0.5", SHOPSYNC_CLUSTER_SECRET: "too-short" })
    expect(short.code).toBe(1)
    expect(short.stderr).toContain("SHOPSYNC_CLUSTER_SECRET must be at least 32 characters")
    expect(short.stderr).not.toContain("too-short")
  })
})
