import { createServer } from "node:http"
import { HttpRouter, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { ConfigProvider, Layer, Logger, LogLevel, ManagedRuntime, Redacted } from "effect"
import { PrometheusMetrics } from "../../src/server/metrics.js"
import { pgLayer } from "../../src/warehouse/database.js"
import { freePort } from "./ports.js"

export interface ServedRoutes {
  /** http://127.0.0.1:PORT */
  readonly url: string
  readonly close: () => Promise<void>
}

/**
 * Serves `router` over real HTTP on a free loopback port, as `serve` would: the warehouse at `dbUrl`, the
 * Prometheus exporter, STORE_ID = `storeId`.
 */
export const serveRoutes = async (router: HttpRouter.HttpRouter<never, any>, dbUrl: string, storeId: string): Promise<ServedRoutes> => {
  const port = await freePort()
  const layer = HttpServer.serve(router).pipe(
    Layer.provide(NodeHttpServer.layer(() => createServer(), { port, host: "127.0.0.1" })),
    Layer.provide(Layer.mergeAll(pgLayer(Redacted.make(dbUrl)), PrometheusMetrics.Default)),
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["STORE_ID", storeId]])))),
    Layer.provide(Logger.minimumLogLevel(LogLevel.Error))
  )
  const runtime = ManagedRuntime.make(layer as Layer.Layer<never, unknown, never>)
  await runtime.runtime()
  return { url: `http://127.0.0.1:${port}`, close: () => runtime.dispose() }
}
