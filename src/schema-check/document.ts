import { Either, ParseResult, Schema } from "effect"
import { fitCheck } from "./fit-check.js"

/** Names the document that does not fit and says why: `document (id 7): <what does not fit>`. */
const problemWith = (doc: unknown, error: ParseResult.ParseError): string => {
  const id = doc && typeof doc === "object" && "id" in doc ? ` (id ${String((doc as { id: unknown }).id)})` : ""
  return `document${id}: ${ParseResult.TreeFormatter.formatErrorSync(error)}`
}

/**
 * Checks one document and returns it as the store sent it, every field included (the warehouse stores documents
 * whole). The schemas of documents transform nothing (their type is what is sent), so a check is all it takes:
 * decoding with the extra fields preserved would copy every document, 14 times the cost; the check is `Schema.is`
 * compiled to plain predicates (fit-check.ts). A document that does not fit is described by `problemWith`.
 */
export const documentDecoder = <A>(schema: Schema.Schema<A>) => {
  const fits = fitCheck(schema)
  const decode = Schema.decodeUnknownEither(schema)
  return (doc: unknown): Either.Either<A, string> =>
    fits(doc) ? Either.right(doc) : Either.left(Either.match(decode(doc), { onLeft: (error) => problemWith(doc, error), onRight: () => "does not fit" }))
}
