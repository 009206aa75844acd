import { Either } from "effect"
import { mayHoldNul, withoutNul } from "../warehouse/screen.js"

/**
 * The deepest nesting a delivery may have. Store documents are a few levels deep (meta_data values a few more);
 * past this a body is refused before anything recurses over it: the NUL cleaning, the schema check, JSON.stringify
 * and PostgreSQL's jsonb parser all recurse, and a deep enough array overflows the stack of each.
 */
export const MAX_DEPTH = 64

/** Whether `value` nests deeper than `limit` levels (a scalar is 0), walked with a stack of its own so the check cannot overflow. */
export const nestsDeeperThan = (value: unknown, limit: number): boolean => {
  const stack: Array<readonly [unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!
    if (v === null || typeof v !== "object") continue
    if (depth >= limit) return true
    for (const child of Object.values(v)) stack.push([child, depth + 1])
  }
  return false
}

/** The JSON value of a body, or why it has none. */
export const parseBody = (body: string): Either.Either<unknown, string> => {
  try {
    return Either.right(JSON.parse(body) as unknown)
  } catch (e) {
    return Either.left(`the body is not a JSON object (${e instanceof Error ? e.message : String(e)})`)
  }
}

/**
 * A document as the warehouse may take it: bounded in depth, its NULs removed as the sync removes them (text and
 * jsonb cannot hold them) when `mayHoldNul` says its text may hold one. What PostgreSQL still refuses (a lone
 * surrogate) is told by its refusal.
 */
export const screenDocument = (doc: unknown, mayHoldNul: boolean): Either.Either<unknown, string> => {
  if (nestsDeeperThan(doc, MAX_DEPTH)) return Either.left(`the document nests deeper than ${MAX_DEPTH} levels`)
  return Either.right(mayHoldNul ? withoutNul(doc) : doc)
}

/** A delivery's body parsed and screened, or why it cannot be applied. */
export const screenBody = (body: string): Either.Either<unknown, string> =>
  Either.flatMap(parseBody(body), (doc) => screenDocument(doc, mayHoldNul(body)))
