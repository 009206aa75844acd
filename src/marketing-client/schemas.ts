import { Either, ParseResult, Schema } from "effect"

// The service's answers, as far as shopsync reads them. Unknown properties are ignored. The service is
// PHP: an associative array keyed 0..n-1 arrives as a JSON list, any other keys as an object, so every
// keyed collection is accepted in both shapes; counts may arrive as strings.

const Count = Schema.Union(Schema.Number, Schema.NumberFromString)

/** A list, or an object keyed by id or index, as [key, value] pairs (a list's keys are its positions). */
const keyed = <A, I>(item: Schema.Schema<A, I>) =>
  Schema.Union(Schema.Array(item), Schema.Record({ key: Schema.String, value: item })).pipe(
    Schema.transform(Schema.Array(Schema.Tuple(Schema.String, Schema.typeSchema(item))), {
      strict: true,
      decode: (v) => (Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v as Record<string, A>)),
      encode: (pairs) => Object.fromEntries(pairs)
    })
  )

export const TokenAnswer = Schema.Struct({
  access_token: Schema.String.pipe(Schema.minLength(1)),
  expires_in: Count,
  token_type: Schema.String
})

const ErrorEntry = Schema.Struct({ message: Schema.optional(Schema.String), code: Schema.optional(Schema.Unknown) })

/** POST /api/contacts/batch/new: `contacts` and `errors` are keyed by the entry's index in the request. */
export const BatchAnswer = Schema.Struct({
  statusCodes: keyed(Count),
  contacts: Schema.optionalWith(keyed(Schema.Struct({ id: Count })), { default: () => [] }),
  errors: Schema.optionalWith(keyed(ErrorEntry), { default: () => [] })
})

export const Field = Schema.Struct({ id: Count, alias: Schema.String, type: Schema.String, label: Schema.optional(Schema.String) })
export type Field = typeof Field.Type

export const FieldList = Schema.Struct({ total: Count, fields: keyed(Field) })
export const FieldAnswer = Schema.Struct({ field: Field })

export const Hook = Schema.Struct({
  id: Count,
  name: Schema.NullOr(Schema.String),
  webhookUrl: Schema.NullOr(Schema.String),
  isPublished: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  triggers: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] })
})
export type Hook = typeof Hook.Type

/** GET /api/hooks: the seed documents a map keyed by id, the real service answers a list. */
export const HookList = Schema.Struct({ total: Count, hooks: keyed(Hook) })
export const HookAnswer = Schema.Struct({ hook: Hook })
export const TriggerList = Schema.Struct({
  triggers: Schema.Record({ key: Schema.String, value: Schema.Struct({ label: Schema.String }) })
})

/** Decodes, or says in one line what did not fit. */
export const decode = <A, I>(schema: Schema.Schema<A, I>, value: unknown): Either.Either<A, string> =>
  Schema.decodeUnknownEither(schema)(value).pipe(
    Either.mapLeft((e) => ParseResult.TreeFormatter.formatErrorSync(e).replace(/\s+/g, " ").slice(0, 300))
  )
