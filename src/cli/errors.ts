import { ValidationError } from "@effect/cli"
import { Cause, ConfigError, Effect, Option } from "effect"
import { errorText } from "../sync/errors.js"

/** The variables a ConfigError is about, missing and invalid, each named once. */
const configProblems = (e: ConfigError.ConfigError) => {
  const missing = new Set<string>()
  const invalid = new Map<string, string>()
  const walk = (err: ConfigError.ConfigError): void => {
    switch (err._op) {
      case "And":
      case "Or":
        walk(err.left)
        walk(err.right)
        return
      case "MissingData":
        missing.add(err.path.join("."))
        return
      case "InvalidData":
        invalid.set(err.path.join("."), err.message)
        return
      default:
        invalid.set(err.path.join("."), err.message)
    }
  }
  walk(e)
  // Environment-then-file fails with Or(missing from one, invalid in the other): a value was found, so it is only invalid.
  return { missing: [...missing].filter((k) => !invalid.has(k)), invalid: [...invalid].map(([k, m]) => `${k} (${m})`) }
}

const describe = (e: unknown): string => {
  if (ConfigError.isConfigError(e)) {
    const { missing, invalid } = configProblems(e)
    const parts = [
      missing.length > 0 ? `missing ${missing.join(", ")}` : "",
      invalid.length > 0 ? `invalid ${invalid.join("; ")}` : ""
    ].filter((p) => p !== "")
    return `configuration problem: ${parts.join("; ")}. Set ${missing.length + invalid.length > 1 ? "them" : "it"} in the environment ` +
      "or in the config file (SHOPSYNC_CONFIG, default ./shopsync.env); see config/shopsync.env.example."
  }
  return errorText(e)
}

/**
 * Every failure ends as one paragraph on stderr naming the cause (then exit code 1 from the runtime);
 * stack traces only with SHOPSYNC_DEBUG=1. Command-line mistakes are already explained by the CLI library.
 */
export const reportFailure = <A, E, R>(program: Effect.Effect<A, E, R>) =>
  program.pipe(
    Effect.tapErrorCause((cause) =>
      Effect.sync(() => {
        if (Cause.isInterruptedOnly(cause)) return
        const failure = Cause.failureOption(cause)
        if (Option.isSome(failure) && ValidationError.isValidationError(failure.value)) return
        const what = Option.match(failure, { onNone: () => Cause.squash(cause), onSome: (e) => e })
        process.stderr.write(`shopsync: ${describe(what)}\n`)
        if (process.env.SHOPSYNC_DEBUG === "1") process.stderr.write(`${Cause.pretty(cause)}\n`)
      })
    )
  )
