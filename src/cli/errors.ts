import { ValidationError } from "@effect/cli"
import { Cause, ConfigError, Effect, Option } from "effect"

const describe = (e: unknown): string => {
  if (ConfigError.isConfigError(e)) {
    return `configuration problem: ${String(e).replace(/\s+/g, " ")}. ` +
      "Set it in the environment or in the config file (SHOPSYNC_CONFIG, default ./shopsync.env); see config/shopsync.env.example."
  }
  if (e instanceof Error && e.message) return e.message
  if (typeof e === "object" && e !== null && "message" in e) return String((e as { message: unknown }).message)
  return String(e)
}

/**
 * Every failure ends as one paragraph on stderr naming the cause, and exit code 1; stack traces only
 * with SHOPSYNC_DEBUG=1. Command-line mistakes are already explained by the CLI library.
 */
export const reportFailure = <A, E, R>(program: Effect.Effect<A, E, R>) =>
  program.pipe(
    Effect.catchAllCause((cause) =>
      Effect.sync(() => {
        process.exitCode = 1
        if (Cause.isInterruptedOnly(cause)) return
        const failure = Cause.failureOption(cause)
        if (Option.isSome(failure) && ValidationError.isValidationError(failure.value)) return
        const what = Option.match(failure, { onNone: () => Cause.squash(cause), onSome: (e) => e })
        process.stderr.write(`shopsync: ${describe(what)}\n`)
        if (process.env.SHOPSYNC_DEBUG === "1") process.stderr.write(`${Cause.pretty(cause)}\n`)
      })
    )
  )
