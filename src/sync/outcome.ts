import { Effect, LogLevel, Option, Ref } from "effect"

/** How a run ended, in its summary log line and in sync.runs.outcome. */
export type RunOutcome = "succeeded" | "partial_failure" | "failed" | "skipped_locked" | "interrupted"

/** Stands for "the command was interrupted" among the failures an outcome line covers. */
export const INTERRUPT = Symbol("interrupt")

/**
 * The failures (and the interrupt) whose outcome line is already logged (a run's summary line, the push's), so
 * that the command's own outcome line does not repeat them: a monitor counts one error line per failure.
 */
export class Outcomes extends Effect.Service<Outcomes>()("shopsync/Outcomes", {
  effect: Effect.map(Ref.make<ReadonlySet<unknown>>(new Set()), (seen) => ({
    note: (covered: unknown): Effect.Effect<void> => Ref.update(seen, (s) => new Set([...s, covered])),
    logged: (failure: unknown): Effect.Effect<boolean> => Effect.map(Ref.get(seen), (s) => s.has(failure))
  }))
}) {}

/**
 * The level of a line that only says all went as usual (a push with nothing to send, a stream done with no rows, a
 * detail its outcome line already sums up): info on a terminal, where a person watches the command; debug in logs,
 * where a worker would repeat it every sync of every store and the run's summary line says as much.
 */
export const routineLevel = (interactive: boolean) => (interactive ? LogLevel.Info : LogLevel.Debug)

const LEVELS = {
  error: LogLevel.Error,
  warning: LogLevel.Warning,
  info: LogLevel.Info,
  routine: routineLevel(process.stderr.isTTY === true)
} as const

/**
 * One outcome as one log line, its facts as annotations (a JSON line's `annotations` when stderr is not a
 * terminal), at the level a monitor alerts on (`routine`: see routineLevel). `covers`: the failure (or INTERRUPT) it
 * reports. On a terminal a failure is left to the paragraph that ends every failed command, as before.
 */
export const logOutcome = (
  level: keyof typeof LEVELS,
  message: string,
  fields: Readonly<Record<string, unknown>>,
  covers?: unknown
) =>
  Effect.gen(function*() {
    const paragraphFollows = process.stderr.isTTY === true && covers !== undefined && covers !== INTERRUPT
    if (!paragraphFollows) yield* Effect.logWithLevel(LEVELS[level], message).pipe(Effect.annotateLogs(fields))
    if (covers === undefined) return
    const outcomes = yield* Effect.serviceOption(Outcomes)
    if (Option.isSome(outcomes)) yield* outcomes.value.note(covers)
  })
