/**
 * The OpenTelemetry SDK behind tracing.ts: loaded only when traces are exported (TracingLive imports this module
 * when an endpoint is set), so a command that exports none never loads the SDK nor the exporter.
 */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto"
import { BatchSpanProcessor, type SpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { SERVICE_NAME } from "./tracing.js"

/** An OpenTelemetry tracer exporting to `exporter`; batched (production) or one span at a time (tests). */
export const tracerLayer = (exporter: SpanExporter, batch = true) =>
  NodeSdk.layer(() => ({
    resource: { serviceName: SERVICE_NAME, serviceVersion: "0.1.0" },
    spanProcessor: batch ? new BatchSpanProcessor(exporter) : new SimpleSpanProcessor(exporter),
    // The batch still queued is sent at exit; a collector that does not answer holds the exit up this long at most.
    shutdownTimeout: "5 seconds"
  }))

/** The tracer of a process that exports over OTLP/HTTP: the exporter reads its endpoint, headers and timeout itself. */
export const otlpTracerLayer = () => tracerLayer(new OTLPTraceExporter())
