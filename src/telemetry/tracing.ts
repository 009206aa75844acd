/**
 * Traces. The sync's spans (sync.run → sync.stream → sync.walk → sync.slice → sync.page → warehouse.load, with
 * store.request and sql.execute beneath) are exported over OTLP/HTTP (protobuf) when OpenTelemetry's own variables
 * ask for it: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as is) or OTEL_EXPORTER_OTLP_ENDPOINT (+ /v1/traces), with
 * OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION and their _TRACES_ forms read by the exporter itself;
 * OTEL_SERVICE_NAME (default shopsync) and OTEL_RESOURCE_ATTRIBUTES name the process. OTEL_SDK_DISABLED=true or
 * OTEL_TRACES_EXPORTER=none turn it off. Without an endpoint nothing is installed: no SDK, no exporter, no
 * network, only Effect's built-in tracer as before.
 */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto"
import { BatchSpanProcessor, type SpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
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

/** An OpenTelemetry tracer exporting to `exporter`; batched (production) or one span at a time (tests). */
export const tracerLayer = (exporter: SpanExporter, batch = true) =>
  NodeSdk.layer(() => ({
    resource: { serviceName: SERVICE_NAME, serviceVersion: "0.1.0" },
    spanProcessor: batch ? new BatchSpanProcessor(exporter) : new SimpleSpanProcessor(exporter),
    // The batch still queued is sent at exit; a collector that does not answer holds the exit up this long at most.
    shutdownTimeout: "5 seconds"
  }))

/**
 * Provided once at the entry point. The exporter reads the endpoint, headers and timeout from the environment
 * itself (so OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as given, the generic one gets /v1/traces appended).
 */
export const TracingLive: Layer.Layer<never> = Layer.unwrapEffect(
  Effect.map(otlpEndpoint, (endpoint) => (Option.isNone(endpoint) ? Layer.empty : Layer.discard(tracerLayer(new OTLPTraceExporter()))))
)
