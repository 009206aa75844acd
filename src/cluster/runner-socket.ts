/**
 * The runners' socket, authenticated: TLS 1.3 keyed by a pre-shared key (PSK) derived from SHOPSYNC_CLUSTER_SECRET,
 * on the listening side and on every client (runner to runner, the health check's pings, `stores sync`).
 *
 * Why TLS-PSK rather than mutual TLS with certificates or a hand-made challenge–response: one secret to distribute (no
 * CA, certificates or expiry to run), yet both sides prove they hold the key (the client's PSK binder, the server's
 * Finished) before any RPC byte is read, and the traffic after is encrypted and integrity-checked with forward secrecy
 * (the PSK is combined with an X25519 exchange), so no one on the path reads store ids or injects messages into an
 * authenticated connection, which a handshake followed by the plain stream would allow. Node 20's OpenSSL 3 offers
 * TLS 1.3 PSK through `pskCallback` with the SHA-256 suites below; the server has no certificate, so a client without
 * the key cannot complete any handshake.
 *
 * Without a secret a runner on loopback keeps the library's plain TCP socket (one machine, no one else reaches it);
 * elsewhere it refuses to listen and clients refuse to connect (ClusterSecretRequired).
 */
import * as Runners from "@effect/cluster/Runners"
import * as ShardingConfig from "@effect/cluster/ShardingConfig"
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import * as NodeSocket from "@effect/platform-node/NodeSocket"
import * as NodeSocketServer from "@effect/platform-node/NodeSocketServer"
import * as Socket from "@effect/platform/Socket"
import * as SocketServer from "@effect/platform/SocketServer"
import * as RpcClient from "@effect/rpc/RpcClient"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import { Deferred, Effect, Exit, FiberSet, Layer, Option, Redacted, Runtime, Scope } from "effect"
import type { AddressInfo } from "node:net"
import * as tls from "node:tls"
import { requireSecretUnlessLoopback, RunnerPsk } from "./cluster-secret.js"

/** Both sides name the key this way; the server refuses any other identity. */
const PSK_IDENTITY = "shopsync-runner-v1"

const tlsOptions = {
  minVersion: "TLSv1.3",
  // OpenSSL's PSK callbacks serve TLS 1.3 only with SHA-256 suites.
  ciphers: "TLS_AES_128_GCM_SHA256:TLS_CHACHA20_POLY1305_SHA256"
} satisfies tls.TlsOptions

/** A connection that has not authenticated by then is dropped (Node's default is 120 s). */
const HANDSHAKE_TIMEOUT_MS = 5000
const REFUSALS_LOGGED_EVERY_MS = 10_000
/** How long a client waits for the handshake; the library's plain socket waits 1 s for the TCP connection. */
const CLIENT_OPEN_TIMEOUT_MS = 2000

/**
 * A SocketServer over TLS-PSK, after NodeSocketServer.make: the RPC server is handed only connections whose handshake
 * proved the key; the others are destroyed and logged, having passed no byte on.
 */
export const makeTlsServer = (options: {
  readonly host: string
  readonly port: number
  readonly psk: Redacted.Redacted<Uint8Array>
  readonly handshakeTimeoutMs?: number | undefined
}) =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<never>()
    const key = Redacted.value(options.psk)
    const failed = yield* Deferred.make<never, Error>()
    // Connections that authenticated before `run` began wait here, as in NodeSocketServer.
    const pending: Array<tls.TLSSocket> = []
    let onConnection = (conn: tls.TLSSocket): unknown => pending.push(conn)

    const server = tls.createServer({
      ...tlsOptions,
      handshakeTimeout: options.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS,
      pskCallback: (_socket, identity) => (identity === PSK_IDENTITY ? key : null)
    })
    server.on("secureConnection", (conn) => {
      // Until the RPC server listens on it (fromDuplex), an error only ends it: no listener would crash the process.
      conn.on("error", () => conn.destroy())
      onConnection(conn)
    })
    // Node emits this for a wrong key, a plain client or a handshake timeout, but leaves the socket open. Logged at
    // most once per REFUSALS_LOGGED_EVERY_MS (with a count of the others), so a port scan does not flood the log.
    let lastLogged = 0
    let unlogged = 0
    server.on("tlsClientError", (error, conn) => {
      conn.destroy()
      if (Date.now() - lastLogged < REFUSALS_LOGGED_EVERY_MS) return void unlogged++
      const others = unlogged > 0 ? ` (and ${unlogged} more since the last such line)` : ""
      ;[lastLogged, unlogged] = [Date.now(), 0]
      Runtime.runFork(runtime)(Effect.logWarning(
        `runner socket: refused a connection from ${conn.remoteAddress ?? "?"}:${conn.remotePort ?? "?"} that did not ` +
          `authenticate (${(error as NodeJS.ErrnoException).code ?? error.message})${others}: a worker or \`stores sync\` ` +
          "with another SHOPSYNC_CLUSTER_SECRET, or not a runner"
      ))
    })
    server.on("error", (cause) => Deferred.unsafeDone(failed, Exit.fail(cause)))
    yield* Effect.addFinalizer(() => Effect.async<void>((resume) => void server.close(() => resume(Effect.void))))

    yield* Effect.async<void>((resume) => void server.listen({ host: options.host, port: options.port }, () => resume(Effect.void))).pipe(
      Effect.raceFirst(Effect.mapError(Deferred.await(failed), (cause) => new SocketServer.SocketServerError({ reason: "Open", cause })))
    )

    const run = Effect.fnUntraced(function*<R, E, _>(handler: (socket: Socket.Socket) => Effect.Effect<_, E, R>) {
      const scope = yield* Scope.make()
      const fibers = yield* Scope.extend(FiberSet.make(), scope)
      const runFork = yield* FiberSet.runtime(fibers)<R>()
      const serve = (conn: tls.TLSSocket) =>
        runFork(NodeSocket.fromDuplex(Effect.acquireRelease(
          conn.destroyed
            ? Effect.fail(new Socket.SocketCloseError({ reason: "Close", code: 1000 }))
            : Effect.succeed(conn),
          (conn) => Effect.sync(() => conn.destroySoon())
        )).pipe(
          Effect.flatMap(handler),
          Effect.catchAllCause((cause) => Effect.logDebug("runner socket: connection ended", cause))
        ))
      return yield* Effect.async<never>(() => {
        const previous = onConnection
        onConnection = serve
        pending.splice(0).forEach(serve)
        return Effect.suspend(() => {
          onConnection = previous
          return Scope.close(scope, Exit.void)
        })
      }).pipe(
        Effect.raceFirst(Effect.mapError(Deferred.await(failed), (cause) => new SocketServer.SocketServerError({ reason: "Unknown", cause })))
      )
    })

    const address = server.address() as AddressInfo
    return SocketServer.SocketServer.of({ address: { _tag: "TcpAddress", hostname: address.address, port: address.port }, run })
  })

/** A client socket over TLS-PSK to a runner (or any server of makeTlsServer); opens once the handshake has succeeded. */
export const makeTlsSocket = (options: { readonly host: string; readonly port: number; readonly psk: Redacted.Redacted<Uint8Array> }) =>
  NodeSocket.fromDuplex(
    Effect.scopeWith((scope) => {
      let conn: tls.TLSSocket | undefined
      return Effect.zipRight(
        Scope.addFinalizer(scope, Effect.sync(() => conn?.destroy())),
        Effect.async<tls.TLSSocket, Socket.SocketError>((resume) => {
          conn = tls.connect({
            ...tlsOptions,
            host: options.host,
            port: options.port,
            pskCallback: () => ({ identity: PSK_IDENTITY, psk: Redacted.value(options.psk) })
          })
          conn.once("secureConnect", () => resume(Effect.succeed(conn!)))
          conn.on("error", (cause) => resume(Effect.fail(new Socket.SocketGenericError({ reason: "Open", cause }))))
        })
      )
    }),
    { openTimeout: CLIENT_OPEN_TIMEOUT_MS }
  )

/** The runner's listening socket: TLS-PSK with a secret; without one the library's plain socket, on loopback only. */
export const RunnerSocketServerLive = Layer.scoped(
  SocketServer.SocketServer,
  Effect.gen(function*() {
    const config = yield* ShardingConfig.ShardingConfig
    const listen = Option.getOrThrowWith(
      Option.orElse(config.runnerListenAddress, () => config.runnerAddress),
      () => new Error("a runner needs ShardingConfig.runnerAddress")
    )
    const psk = yield* RunnerPsk
    yield* requireSecretUnlessLoopback(psk, listen.host, listen.port, "listen")
    if (Option.isNone(psk)) {
      yield* Effect.logWarning(`runner socket: ${listen.host}:${listen.port} is unauthenticated (no SHOPSYNC_CLUSTER_SECRET; loopback only)`)
      return yield* NodeSocketServer.make({ host: listen.host, port: listen.port })
    }
    yield* Effect.logInfo(`runner socket: ${listen.host}:${listen.port}, TLS 1.3 keyed by SHOPSYNC_CLUSTER_SECRET`)
    return yield* makeTlsServer({ host: listen.host, port: listen.port, psk: psk.value })
  })
)

/** How runners and cluster clients reach a runner: over TLS-PSK with a secret; without one, plain TCP to loopback only. */
export const RunnerClientProtocolLive = Layer.effect(
  Runners.RpcClientProtocol,
  Effect.gen(function*() {
    const psk = yield* RunnerPsk
    if (Option.isNone(psk)) {
      const plain = yield* Effect.provide(Runners.RpcClientProtocol, NodeClusterSocket.layerClientProtocol)
      return (address) => Effect.zipRight(Effect.orDie(requireSecretUnlessLoopback(psk, address.host, address.port, "connect")), plain(address))
    }
    const serialization = yield* RpcSerialization.RpcSerialization
    return (address) =>
      Effect.flatMap(makeTlsSocket({ host: address.host, port: address.port, psk: psk.value }), (socket) =>
        RpcClient.makeProtocolSocket().pipe(
          Effect.provideService(Socket.Socket, socket),
          Effect.provideService(RpcSerialization.RpcSerialization, serialization)
        ))
  })
)
