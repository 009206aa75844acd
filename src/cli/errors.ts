import { ValidationError } from "@effect/cli"
import { Cause, ConfigError, Effect, Exit, Option } from "effect"
import { misspelling } from "../config/diagnostics.js"
import { storeIdConfig } from "../config/settings.js"
import { errorText } from "../sync/errors.js"
import { INTERRUPT, logOutcome, Outcomes } from "../sync/outcome.js"

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

/** A missing variable, and the variable set in its place by a typo: the usual reason it is missing. */
const withMisspelling = (name: string): string => {
  const typo = misspelling(name, process.env)
  return typo === undefined ? name : `${name} (${typo} is set: a misspelling?)`
}

export const describe = (e: unknown): string => {
  if (ConfigError.isConfigError(e)) {
    const { missing, invalid } = configProblems(e)
    const parts = [
      missing.length > 0 ? `missing ${missing.map(withMisspelling).join(", ")}` : "",
      invalid.length > 0 ? `invalid ${invalid.join("; ")}` : ""
    ].filter((p) => p !== "")
    return `configuration problem: ${parts.join("; ")}. Set ${missing.length + invalid.length > 1 ? "them" : "it"} in the environment ` +
      "or in the config file (SHOPSYNC_CONFIG, default ./shopsync.env); see config/shopsync.env.example."
  }
  return errorText(e)
}

/** The failure a cause stands for: its first expected failure, else its defect. */
const failureOf = (cause: Cause.Cause<unknown>): unknown => Option.getOrElse(Cause.failureOption(cause), () => Cause.squash(cause))

/**
 * A command of one store: every JSON log line it writes carries `store`, and it ends with an outcome line unless one
 * already covers its end (a run's summary line, the push's): `outcome` failed (error level) with the cause, or
 * interrupted (warning) when a signal stopped it before a run recorded that.
 */
export const forStore = <A, E, R>(command: string, program: (storeId: string) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(storeIdConfig, (storeId) => forStoreId(command, storeId, program(storeId)))

/** forStore for a store named on the command line (`stores sync <id>`) rather than by STORE_ID. */
export const forStoreId = <A, E, R>(command: string, storeId: string, program: Effect.Effect<A, E, R>) =>
    program.pipe(
      Effect.onExit((exit) =>
        Effect.gen(function*() {
          if (Exit.isSuccess(exit)) return
          const outcomes = yield* Effect.serviceOption(Outcomes)
          const logged = (covered: unknown) => Option.isSome(outcomes) ? outcomes.value.logged(covered) : Effect.succeed(false)
          if (Cause.isInterruptedOnly(exit.cause)) {
            if (!(yield* logged(INTERRUPT))) yield* logOutcome("warning", `${command} stopped by a signal`, { command, outcome: "interrupted" }, INTERRUPT)
            return
          }
          const failure = failureOf(exit.cause)
          if (ValidationError.isValidationError(failure) || (yield* logged(failure))) return
          yield* logOutcome("error", `${command} failed: ${describe(failure)}`, { command, outcome: "failed", error: describe(failure) }, failure)
        })
      ),
      // A terminal's reader knows the store (the pretty logger would repeat it under every line).
      (effect) => (process.stderr.isTTY === true ? effect : Effect.annotateLogs(effect, "store", storeId))
    )

/**
 * Every failure ends as one paragraph on stderr naming the cause (then exit code 1 from the runtime), after the
 * command's JSON outcome line when stderr is not a terminal (see forStore); stack traces only with SHOPSYNC_DEBUG=1.
 * Command-line mistakes are explained before the command runs (command-line.ts, exit 64).
 */
export const reportFailure = <A, E, R>(program: Effect.Effect<A, E, R>) =>
  program.pipe(
    Effect.tapErrorCause((cause) =>
      Effect.sync(() => {
        if (Cause.isInterruptedOnly(cause)) return
        const what = failureOf(cause)
        if (ValidationError.isValidationError(what)) return
        process.stderr.write(`shopsync: ${describe(what)}\n`)
        if (process.env.SHOPSYNC_DEBUG === "1") process.stderr.write(`${Cause.pretty(cause)}\n`)
      })
    ),
    Effect.provide(Outcomes.Default)
  )
