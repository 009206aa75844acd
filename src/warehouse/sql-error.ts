import { SqlError } from "@effect/sql/SqlError"

/** A warehouse failure with PostgreSQL's own words (SqlError's message alone is "Failed to execute statement"). */
export const sqlErrorText = (e: unknown): string | undefined => {
  if (!(e instanceof SqlError)) return undefined
  const cause = e.cause as { message?: string; code?: string } | undefined
  return `the warehouse refused a statement (${cause?.code ? `${cause.code}: ` : ""}${cause?.message ?? e.message}); ` +
    "check DATABASE_URL and that `shopsync migrate` has run"
}
