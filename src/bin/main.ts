import * as os from "node:os"
import * as v8 from "node:v8"
import { Command } from "@effect/cli"
import { shopsync } from "../cli/commands.js"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Effect, Exit, Layer, Logger, LogLevel, Option, Predicate } from "effect"
import { planCommandLine, UsageError } from "../cli/command-line.js"
import { reportFailure } from "../cli/errors.js"
import { helpText } from "../cli/help.js"
import { helpStyle } from "../cli/help-text.js"
import { signalName, stopWhenOrphanedUnderNpm } from "../cli/signals.js"
import { configProvider } from "../config/config-file.js"
import { preflight } from "../cli/preflight.js"
import { RunLockHeld, SyncFailed } from "../sync/errors.js"
import { terminalLogger } from "../telemetry/terminal.js"
import { TracingLive } from "../telemetry/tracing.js"
import { leaveSignalsToRuntime } from "../warehouse/embedded-postgres.js"
import { SHOPSYNC_VERSION } from "../http-client/user-agent.js"

// A sync allocates a page's worth of short-lived strings and objects per request while it keeps ~50 MB
// alive; V8 would let the old generation grow to ~4× that before collecting it. 1.5× keeps the peak
// RSS well under 300 MB for a few full collections more (measured: same CPU time).
v8.setFlagsFromString("--heap-growing-percent=50")

const cli = Command.run(shopsync, { name: "shopsync", version: SHOPSYNC_VERSION })

/** Logs go to stderr (stdout is for results): one readable line each on a terminal, one JSON object per line elsewhere. */
const logger = Logger.replace(
  Logger.defaultLogger,
  process.stderr.isTTY ? terminalLogger : Logger.withConsoleError(Logger.jsonLogger)
)

/**
 * 0 done; 2 some streams of a sync or backfill failed (the others ran, and the contact push); 75 (EX_TEMPFAIL) a
 * sync found another run holding the store's lock and did nothing; 64 (EX_USAGE) a mistake on the command line; a failure's own `exitCode` (check: 3–6); 1 any
 * other failure, a wrong setting included; stopped by a signal, 128 + its number, as a shell reports it, so cron,
 * systemd and Kubernetes do not count an interrupted sync as a success.
 */
const exitCode = (exit: Exit.Exit<unknown, unknown>): number => {
  if (Exit.isSuccess(exit)) return 0
  if (Cause.isInterruptedOnly(exit.cause)) return 128 + signalNumber
  const failure = Option.getOrUndefined(Cause.failureOption(exit.cause))
  if (Predicate.hasProperty(failure, "exitCode") && typeof failure.exitCode === "number") return failure.exitCode
  if (failure instanceof SyncFailed) return 2
  if (failure instanceof RunLockHeld) return 75
  return failure instanceof UsageError ? 64 : 1
}

// A reader that stops early (`status | head -1`) closes the pipe: what is left to print goes nowhere, and the
// command ends as it would have, without a stack trace.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code !== "EPIPE") throw e
})

leaveSignalsToRuntime()
let signalNumber = os.constants.signals.SIGINT
process.once("SIGTERM", () => {
  signalNumber = os.constants.signals.SIGTERM
})
stopWhenOrphanedUnderNpm()
/** Commands that checkpoint as they go: a stopped one is picked up by the next run. */
const RESUMABLE = ["sync", "backfill"]
let resumable = false

// Reading the config file is inside reportFailure, so an unreadable one is explained like any other failure.
reportFailure(
  Effect.gen(function*() {
    const provider = yield* configProvider
    const plan = yield* planCommandLine(shopsync.descriptor, process.argv.slice(2), process.stdin.isTTY === true)
    if (plan._tag === "Help") return void process.stdout.write(helpText(plan.path, helpStyle()))
    resumable = RESUMABLE.includes(plan.command ?? "")
    yield* preflight(plan.command).pipe(Effect.withConfigProvider(provider))
    yield* cli(process.argv).pipe(Effect.withConfigProvider(provider))
  })
).pipe(
  // Traces leave the process only when OTEL_EXPORTER_OTLP_ENDPOINT asks (telemetry/tracing.ts); flushed at exit.
  Effect.provide(Layer.mergeAll(NodeContext.layer, logger, TracingLive)),
  Logger.withMinimumLogLevel(process.env.SHOPSYNC_DEBUG === "1" ? LogLevel.Debug : LogLevel.Info),
  NodeRuntime.runMain({
    disableErrorReporting: true,
    disablePrettyLogger: true,
    teardown: (exit, onExit) => {
      const code = exitCode(exit)
      if (code > 128) {
        const next = resumable ? "; the next run resumes from the last checkpoints" : ""
        process.stderr.write(`shopsync: stopped by ${signalName(code - 128)}${next}\n`)
      }
      onExit(code)
    }
  })
)
