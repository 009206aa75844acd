/**
 * Traces. The sync's spans (sync.run → sync.stream → sync.walk → sync.slice → sync.page → warehouse.load, with
 * store.request and sql.execute beneath) are exported over OTLP/HTTP (protobuf) when OpenTelemetry's own variables
 * ask for it: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as is) or OTEL_EXPORTER_OTLP_ENDPOINT (+ /v1/traces), with
 * OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION and their _TRACES_ forms read by the exporter itself;
 * OTEL_SERVICE_NAME (default shopsync) and OTEL_RESOURCE_ATTRIBUTES name the process. OTEL_SDK_DISABLED=true or
 * OTEL_TRACES_EXPORTER=none turn it off. Without an endpoint nothing is installed: no SDK, no exporter, no
 * network, only Effect's built-in tracer as before.
 */
import { Config, Effect, Layer, Option } from "effect"

export const SERVICE_NAME = "shopsync"

/** Where spans go, per OpenTelemetry's variables; none when export is not asked for (or turned off). */
export const otlpEndpoint = Effect.gen(function*() {
  const env = (name: string) => Config.option(Config.string(name)).pipe(Effect.map(Option.map((v) => v.trim())), Effect.map(Option.filter((v) => v !== "")))
  const disabled = Option.getOrElse(yield* env("OTEL_SDK_DISABLED"), () => "false").toLowerCase() === "true"
  const exporters = Option.getOrElse(yield* env("OTEL_TRACES_EXPORTER"), () => "otlp").toLowerCase()
  if (disabled || !exporters.split(",").map((e) => e.trim()).includes("otlp")) return Option.none<string>()
  const traces = yield* env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
  return Option.isSome(traces) ? traces : yield* env("OTEL_EXPORTER_OTLP_ENDPOINT")
}).pipe(Effect.orDie)

/**
 * Provided once at the entry point. The exporter reads the endpoint, headers and timeout from the environment
 * itself (so OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as given, the generic one gets /v1/traces appended). The
 * SDK and the exporter (otel-tracer.ts) are loaded only then: importing them costs every command a third of a
 * second or more of its start-up.
 */
export const TracingLive: Layer.Layer<never> = Layer.unwrapEffect(
  Effect.flatMap(otlpEndpoint, (endpoint) =>
    Option.isNone(endpoint)
      ? Effect.succeed(Layer.empty)
      : Effect.map(Effect.promise(() => import("./otel-tracer.js")), (otel) => Layer.discard(otel.otlpTracerLayer())))
)
