import { ConfigProvider, Effect, Option } from "effect"
import { describe, expect, it } from "vitest"
import { otlpEndpoint } from "../../src/telemetry/tracing.js"

const endpointWith = (env: Record<string, string>) =>
  Effect.runSync(otlpEndpoint.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))))

describe("trace export settings (OpenTelemetry's variables)", () => {
  it("exports only when an OTLP endpoint is set, the traces one first", () => {
    expect(endpointWith({})).toEqual(Option.none())
    expect(endpointWith({ OTEL_EXPORTER_OTLP_ENDPOINT: " " })).toEqual(Option.none())
    expect(endpointWith({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" })).toEqual(Option.some("http://c:4318"))
    expect(endpointWith({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t:4318/v1/traces" }))
      .toEqual(Option.some("http://t:4318/v1/traces"))
  })

  it("exports nothing when the SDK is disabled or the traces exporter is not otlp", () => {
    const set = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }
    expect(endpointWith({ ...set, OTEL_SDK_DISABLED: "TRUE" })).toEqual(Option.none())
    expect(endpointWith({ ...set, OTEL_TRACES_EXPORTER: "none" })).toEqual(Option.none())
    expect(endpointWith({ ...set, OTEL_TRACES_EXPORTER: "console, otlp" })).toEqual(Option.some("http://c:4318"))
  })
})
