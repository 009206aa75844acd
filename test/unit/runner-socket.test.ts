// The runners' authenticated socket over real TCP on loopback, in one process: an RPC server behind makeTlsServer runs
// a request only for a client holding the key; a plain client, a client with another key and a silent connection are
// dropped without a byte reaching it. Also the settings: no routable runner address without a secret, the secret's
// length, its file.
import * as RunnerAddress from "@effect/cluster/RunnerAddress"
import * as Runners from "@effect/cluster/Runners"
import * as ShardingConfig from "@effect/cluster/ShardingConfig"
import * as NodeSocket from "@effect/platform-node/NodeSocket"
import * as Socket from "@effect/platform/Socket"
import * as SocketServer from "@effect/platform/SocketServer"
import { describe, expect, it } from "@effect/vitest"
import * as Rpc from "@effect/rpc/Rpc"
import * as RpcClient from "@effect/rpc/RpcClient"
import * as RpcGroup from "@effect/rpc/RpcGroup"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import * as RpcServer from "@effect/rpc/RpcServer"
import { ConfigProvider, Context, Effect, Exit, Layer, Option, Redacted, Schema } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { derivePsk, loadRunnerPsk, RunnerPsk } from "../../src/cluster/cluster-secret.js"
import { isLoopback } from "../../src/config/settings.js"
import { makeTlsServer, makeTlsSocket, RunnerClientProtocolLive, RunnerSocketServerLive } from "../../src/cluster/runner-socket.js"

class Jobs extends RpcGroup.make(Rpc.make("Run", { success: Schema.Number })) {}

const SECRET = randomBytes(32).toString("base64")
const PSK = derivePsk(Redacted.make(SECRET))

/** An RPC server behind makeTlsServer on a free loopback port, counting the requests it ran. */
const serve = Effect.gen(function*() {
  const ran = { count: 0 }
  const server = yield* makeTlsServer({ host: "127.0.0.1", port: 0, psk: PSK, handshakeTimeoutMs: 300 })
  yield* Layer.launch(RpcServer.layer(Jobs).pipe(
    Layer.provide(Jobs.toLayer({ Run: () => Effect.sync(() => ++ran.count) })),
    Layer.provide(RpcServer.layerProtocolSocketServer),
    Layer.provide(Layer.succeed(SocketServer.SocketServer, server)),
    Layer.provide(RpcSerialization.layerMsgPack)
  )).pipe(Effect.forkScoped)
  return { ran, port: (server.address as SocketServer.TcpAddress).port }
})

/** Run's answer through `socket` within a second, or None. */
const run = (socket: Socket.Socket) =>
  Effect.gen(function*() {
    const protocol = yield* RpcClient.makeProtocolSocket().pipe(
      Effect.provideService(Socket.Socket, socket),
      Effect.provideService(RpcSerialization.RpcSerialization, RpcSerialization.msgPack)
    )
    const client = yield* RpcClient.make(Jobs).pipe(Effect.provideService(RpcClient.Protocol, protocol))
    return yield* Effect.option(Effect.timeout(client.Run(), "1 second"))
  })

/** How long until the server closes a raw TCP connection that sends `bytes`, in ms; Infinity if still open after 3 s. */
const closedAfter = (port: number, bytes?: Uint8Array) =>
  Effect.promise(() =>
    new Promise<number>((resolve) => {
      const started = Date.now()
      const conn = net.connect(port, "127.0.0.1", () => bytes && conn.write(bytes))
      const giveUp = setTimeout(() => (resolve(Infinity), conn.destroy()), 3000)
      conn.on("error", () => {})
      conn.on("close", () => (clearTimeout(giveUp), resolve(Date.now() - started)))
    })
  )

const withEnv = (entries: Record<string, string>) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(entries))))

describe("the runners' TLS-PSK socket", () => {
  it.scopedLive("runs a request only for a client holding the key", () =>
    Effect.gen(function*() {
      const { port, ran } = yield* serve
      expect(yield* run(yield* makeTlsSocket({ host: "127.0.0.1", port, psk: PSK }))).toEqual(Option.some(1))
      expect(yield* run(yield* NodeSocket.makeNet({ host: "127.0.0.1", port }))).toEqual(Option.none())
      const other = derivePsk(Redacted.make(randomBytes(32).toString("base64")))
      expect(yield* run(yield* makeTlsSocket({ host: "127.0.0.1", port, psk: other }))).toEqual(Option.none())
      expect(ran.count).toBe(1)
    }))

  it.scopedLive("drops a connection that does not authenticate within the handshake timeout, passing nothing on", () =>
    Effect.gen(function*() {
      const { port, ran } = yield* serve
      const silent = yield* closedAfter(port)
      // A msgpack RPC request, as a plain client writes it.
      const request = RpcSerialization.msgPack.unsafeMake().encode({ _tag: "Request", id: "1", tag: "Run", payload: {}, headers: [] })
      const talking = yield* closedAfter(port, request as Uint8Array)
      console.log(`runner socket: a silent connection closed after ${silent} ms, a plain RPC request's after ${talking} ms (timeout 300 ms)`)
      expect(silent).toBeGreaterThanOrEqual(250)
      expect(silent).toBeLessThan(2000)
      expect(talking).toBeLessThan(2000)
      expect(ran.count).toBe(0)
    }))
})

describe("the runner socket's settings", () => {
  const sharding = (host: string) =>
    ShardingConfig.layer({ runnerAddress: Option.some(RunnerAddress.make(host, 0)) })

  it.scopedLive("a runner refuses a routable address without a secret, and takes loopback without one", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.exit(Layer.build(RunnerSocketServerLive.pipe(
        Layer.provide([sharding("10.0.0.5"), Layer.succeed(RunnerPsk, Option.none())])
      )))
      expect(Exit.isFailure(refused) && String(refused.cause)).toContain(
        "the runner would listen on 10.0.0.5:0 (SHOPSYNC_RUNNER_HOST), an address other machines can reach, and SHOPSYNC_CLUSTER_SECRET is not set"
      )
      const loopback = yield* Layer.build(RunnerSocketServerLive.pipe(
        Layer.provide([sharding("127.0.0.1"), Layer.succeed(RunnerPsk, Option.none())])
      ))
      expect(Context.get(loopback, SocketServer.SocketServer).address).toMatchObject({ _tag: "TcpAddress", hostname: "127.0.0.1" })
    }))

  it.scopedLive("a client without a secret does not connect to a runner off loopback", () =>
    Effect.gen(function*() {
      const connect = yield* Runners.RpcClientProtocol.pipe(Effect.provide(RunnerClientProtocolLive.pipe(
        Layer.provide([RpcSerialization.layerMsgPack, Layer.succeed(RunnerPsk, Option.none())])
      )))
      const exit = yield* Effect.exit(connect(RunnerAddress.make("10.0.0.6", 34431)))
      expect(Exit.isFailure(exit) && String(exit.cause)).toContain("the runner at 10.0.0.6:34431 is not on this machine's loopback")
    }))

  it("knows loopback by its literal form only", () => {
    expect(["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]", "::ffff:127.0.0.1"].filter((h) => !isLoopback(h))).toEqual([])
    expect(["10.0.0.5", "0.0.0.0", "worker-1", "localhost.example.com", "::", "192.168.1.2"].filter(isLoopback)).toEqual([])
  })

  it.effect("reads the secret from SHOPSYNC_CLUSTER_SECRET or its file, the same key either way, and refuses a short one", () =>
    Effect.gen(function*() {
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "cluster-secret-")), "secret")
      fs.writeFileSync(file, `${SECRET}\n`, { mode: 0o600 })
      const inline = yield* withEnv({ SHOPSYNC_CLUSTER_SECRET: SECRET })(loadRunnerPsk)
      const fromFile = yield* withEnv({ SHOPSYNC_CLUSTER_SECRET_FILE: file })(loadRunnerPsk)
      expect(Option.map(inline, Redacted.value)).toEqual(Option.map(fromFile, Redacted.value))
      expect(yield* withEnv({})(loadRunnerPsk)).toEqual(Option.none())

      const short = yield* Effect.flip(withEnv({ SHOPSYNC_CLUSTER_SECRET: "short-secret" })(loadRunnerPsk))
      expect(String(short)).toContain("SHOPSYNC_CLUSTER_SECRET must be at least 32 characters")
      expect(String(short)).not.toContain("short-secret")
      fs.writeFileSync(file, "short-secret\n")
      const shortFile = yield* Effect.flip(withEnv({ SHOPSYNC_CLUSTER_SECRET_FILE: file })(loadRunnerPsk))
      expect(shortFile.message).toBe(`SHOPSYNC_CLUSTER_SECRET_FILE ${file}: must hold at least 32 characters (generate one with \`openssl rand -base64 32\`)`)
    }))
})
