import { Options } from "@effect/cli"
import { Data, Effect, Option } from "effect"
import { STREAMS, type StreamName } from "../sync/catalogue.js"

/** --streams, naming what the command runs when it is not given. */
export const streamsOption = (defaults: string) =>
  Options.text("streams").pipe(
    Options.withPseudoName("LIST"),
    Options.withDescription(`comma-separated streams to run (default: ${defaults}): ${STREAMS.join(", ")}`),
    Options.optional
  )

export class UnknownStream extends Data.TaggedError("UnknownStream")<{ readonly message: string }> {}

export const parseStreams = (
  value: Option.Option<string>,
  defaults: ReadonlyArray<StreamName>
): Effect.Effect<ReadonlyArray<StreamName>, UnknownStream> =>
  Option.match(value, {
    onNone: () => Effect.succeed(defaults),
    onSome: (text) => {
      const names = text.split(",").map((s) => s.trim()).filter((s) => s !== "")
      const unknown = names.filter((n) => !(STREAMS as ReadonlyArray<string>).includes(n))
      return unknown.length > 0 || names.length === 0
        ? Effect.fail(new UnknownStream({ message: `unknown stream(s) "${unknown.join(", ") || text}" in --streams; choose from ${STREAMS.join(", ")}` }))
        : Effect.succeed(STREAMS.filter((s) => names.includes(s)))
    }
  })
