import { Options } from "@effect/cli"
import { Data, Effect, Option } from "effect"

/** --until of `simulate store` and `demo`: the generated data ends then instead of in the past. */
export const untilOption = (days: number) =>
  Options.text("until").pipe(
    Options.withPseudoName("today|YYYY-MM-DD"),
    Options.withDescription(
      `the generated orders fill the ${days} days ending that day, in the store's timezone, and nothing happens after it ` +
        `(today: up to now, so a status page shows a live chart); default: the ${days} days from 2024-01-01`
    ),
    Options.optional
  )

/** A --until that is not today or a past day: a mistake on the command line (exit 64). */
export class BadUntil extends Data.TaggedError("BadUntil")<{ readonly message: string }> {
  readonly exitCode = 64
}

/** The `endsAt` (epoch seconds) of the generator's options for --until, read with the simulator's own dates. */
export const endsAtOption = (
  until: Option.Option<string>,
  resolve: (until: string) => number | string
): Effect.Effect<{ endsAt?: number }, BadUntil> =>
  Option.match(until, {
    onNone: () => Effect.succeed({}),
    onSome: (text) => {
      const end = resolve(text)
      return typeof end === "string" ? Effect.fail(new BadUntil({ message: end })) : Effect.succeed({ endsAt: end })
    }
  })
