import * as fs from "node:fs"
import { Effect } from "effect"

/**
 * A `_FILE` setting's file (a key, a token, a secret): its text, or `invalid(problem)` when it cannot be read; a
 * warning naming who else may read it, what they could do (`harm`) and the chmod that fixes it. What the text must
 * hold is the caller's to check.
 */
export const readSecretFile = <E>(variable: string, file: string, harm: string, invalid: (problem: string) => E) =>
  Effect.gen(function*() {
    const { text, mode } = yield* Effect.try({
      try: () => ({ text: fs.readFileSync(file, "utf8"), mode: fs.statSync(file).mode }),
      catch: (e) => invalid(`cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`)
    })
    if ((mode & 0o077) !== 0) {
      const who = (mode & 0o007) !== 0 ? "every user" : "its group"
      yield* Effect.logWarning(`${variable} ${file} is readable by ${who} (mode 0${(mode & 0o777).toString(8)}): ${harm}; run chmod 600 ${file}`)
    }
    return text
  })
