import { SqlError } from "@effect/sql/SqlError"

/** Reaching the server failed (network, authentication, a database that does not exist, the server going away). */
const CONNECTION_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "EHOSTUNREACH", "28P01", "28000", "3D000"])
const isConnectionFailure = (e: SqlError, cause: { message?: string; code?: string } | undefined) =>
  // "Failed to acquire connection", "PgClient: Failed to connect", "Connection terminated unexpectedly", …
  /connect/i.test(e.message) || /connection|not queryable/i.test(cause?.message ?? "") ||
  (cause?.code !== undefined && (CONNECTION_CODES.has(cause.code) || cause.code.startsWith("08") || cause.code.startsWith("57P")))

/** PostgreSQL refused the data (classes 22, data exception, and 23, integrity): what the documents hold, not the server's state. */
export const isRefusal = (e: SqlError): boolean => /^2[23]/.test(String((e.cause as { code?: unknown } | undefined)?.code ?? ""))

/** A refusal in PostgreSQL's words, with its code and its detail (where it says what in the data it refused). */
export const refusalText = (e: SqlError): string => {
  const cause = e.cause as { code?: string; message?: string; detail?: string } | undefined
  return `${cause?.code ?? ""}: ${cause?.message ?? e.message}${cause?.detail ? ` (${cause.detail})` : ""}`
}

/** A warehouse failure with PostgreSQL's own words (SqlError's message alone is "Failed to execute statement"). */
export const sqlErrorText = (e: unknown): string | undefined => {
  if (!(e instanceof SqlError)) return undefined
  const cause = e.cause as { message?: string; code?: string } | undefined
  const said = `${cause?.code ? `${cause.code}: ` : ""}${cause?.message ?? e.message}`
  return isConnectionFailure(e, cause)
    ? `could not reach the warehouse (${said}); check DATABASE_URL and that its server is up`
    : `the warehouse refused a statement (${said}); check DATABASE_URL and that \`shopsync migrate\` has run`
}
