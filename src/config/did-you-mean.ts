import { AutoCorrect, CliConfig } from "@effect/cli"

/**
 * The candidate closest to a mistyped word, when it is close enough to be what was meant: at most two edits (a
 * transposition counts two), fewer for short words so that unrelated short names are not offered.
 */
export const closest = (word: string, candidates: Iterable<string>): string | undefined => {
  const limit = Math.min(CliConfig.defaultConfig.autoCorrectLimit, Math.floor(word.length / 2))
  let best: { name: string; distance: number } | undefined
  for (const name of candidates) {
    const distance = AutoCorrect.levensteinDistance(word, name, CliConfig.defaultConfig)
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { name, distance }
  }
  return best?.name
}

/** " (did you mean X?)" for a near miss, "" otherwise. */
export const didYouMean = (word: string, candidates: Iterable<string>): string => {
  const near = closest(word, candidates)
  return near === undefined ? "" : ` (did you mean ${near}?)`
}
