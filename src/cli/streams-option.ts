import { HelpDoc, Options, ValidationError } from "@effect/cli"
import { Effect, Option } from "effect"
import { didYouMean } from "../config/did-you-mean.js"
import { STREAMS, type StreamName } from "../sync/catalogue.js"

/**
 * A comma-separated list of names from `choices` (`--streams`, `--resources`), checked while the command line is read:
 * an unknown name exits 64 before any work, with the name probably meant. The chosen names in `choices`' order.
 */
export const choiceListOption = <A extends string>(name: string, what: string, choices: ReadonlyArray<A>, description: string) =>
  Options.text(name).pipe(
    Options.withPseudoName("LIST"),
    Options.withDescription(description),
    Options.mapEffect((text) => {
      const names = text.split(",").map((s) => s.trim()).filter((s) => s !== "")
      const unknown = names.filter((n) => !(choices as ReadonlyArray<string>).includes(n))
      if (unknown.length === 0 && names.length > 0) return Effect.succeed(choices.filter((c) => names.includes(c)))
      const named = unknown.map((n) => `"${n}"${didYouMean(n, choices)}`).join(", ") || `"${text}"`
      return Effect.fail(ValidationError.invalidValue(HelpDoc.p(`unknown ${what} ${named} in --${name}; choose from ${choices.join(", ")}`)))
    }),
    Options.optional
  )

/** --streams, naming what the command runs when it is not given. */
export const streamsOption = (defaults: string) =>
  choiceListOption("streams", "stream", STREAMS, `comma-separated streams to run (default: ${defaults}): ${STREAMS.join(", ")}`)

/** The streams named, or the command's defaults. */
export const selectedStreams = (
  value: Option.Option<ReadonlyArray<StreamName>>,
  defaults: ReadonlyArray<StreamName>
): ReadonlyArray<StreamName> => Option.getOrElse(value, () => defaults)
