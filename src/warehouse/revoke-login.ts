import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Data, Effect, Schema } from "effect"
import { READER } from "./reader-role.js"

export class RevokeRefused extends Data.TaggedError("RevokeRefused")<{ readonly login: string; readonly reason: string }> {
  override get message() {
    return `could not revoke ${READER} from ${this.login}: ${this.reason}`
  }
}

const LoginState = Schema.Struct({
  exists: Schema.Boolean,
  reader: Schema.Boolean,
  /** Superuser, CREATEROLE, CREATEDB, REPLICATION or BYPASSRLS: a login someone made for more than reading. */
  privileged: Schema.Boolean,
  /** Roles it is a member of besides the read-only one. */
  others: Schema.Array(Schema.String)
})

/** What `warehouse revoke` did: the role taken back, and whether the login itself went with it. */
export interface Revoked {
  readonly dropped: boolean
  /** The login's sessions on the server ended before it was dropped. */
  readonly sessionsEnded: number
  /** Why the login was kept, when it was. */
  readonly kept: string | undefined
}

/**
 * The inverse of grantLogin: takes the read-only role back from a login and, when that was all the login was for (no
 * other role, no privilege of its own), ends its sessions and drops it, so it can neither read nor connect. A login
 * made for more (another role, CREATEROLE…) keeps existing, without the role. Statements built by format(), as in
 * grantLogin; names schema-qualified.
 */
export const revokeLogin = (login: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const state = yield* SqlSchema.single({
      Request: Schema.String,
      Result: LoginState,
      execute: (name) =>
        sql`SELECT r.oid IS NOT NULL AS exists,
                   coalesce(pg_catalog.pg_has_role(r.oid, g.oid, 'MEMBER'), false) AS reader,
                   coalesce(r.rolsuper OR r.rolcreaterole OR r.rolcreatedb OR r.rolreplication OR r.rolbypassrls, false) AS privileged,
                   array(SELECT o.rolname::text FROM pg_catalog.pg_auth_members m JOIN pg_catalog.pg_roles o ON o.oid = m.roleid
                         WHERE m.member = r.oid AND o.rolname <> ${READER} ORDER BY 1) AS others
            FROM (SELECT 1) one
            LEFT JOIN pg_catalog.pg_roles r ON r.rolname = ${name}
            LEFT JOIN pg_catalog.pg_roles g ON g.rolname = ${READER}`
    })(login)
    if (!state.exists) {
      return yield* new RevokeRefused({ login, reason: "no such login on this server (see who holds it: `SELECT member::regrole FROM pg_auth_members WHERE roleid = 'shopsync_reader'::regrole`)" })
    }
    if (!state.reader) return yield* new RevokeRefused({ login, reason: `${login} does not hold ${READER}: there is nothing to revoke` })
    const run = (template: string) =>
      Effect.flatMap(
        sql<{ statement: string }>`SELECT pg_catalog.format(${template}, ${READER}::pg_catalog.text, ${login}::pg_catalog.text) AS statement`,
        ([row]) => sql.unsafe(row!.statement)
      )
    yield* run("REVOKE %I FROM %I")
    const kept = state.privileged
      ? "it has privileges of its own (superuser, CREATEROLE, CREATEDB, REPLICATION or BYPASSRLS)"
      : state.others.length > 0
      ? `it also holds ${state.others.join(", ")}`
      : undefined
    if (kept !== undefined) return { dropped: false, sessionsEnded: 0, kept } satisfies Revoked
    const [ended] = yield* sql<{ n: number }>`
      SELECT count(*) FILTER (WHERE pg_catalog.pg_terminate_backend(pid))::int AS n FROM pg_catalog.pg_stat_activity WHERE usename = ${login}`
    const sessionsEnded = ended?.n ?? 0
    // Objects it owns or privileges granted to it directly (in any database) keep it: the role is revoked all the same.
    return yield* run("DROP ROLE %2$I").pipe(
      Effect.as<Revoked>({ dropped: true, sessionsEnded, kept: undefined }),
      Effect.catchTag("SqlError", (e) =>
        Effect.succeed<Revoked>({ dropped: false, sessionsEnded, kept: String((e.cause as { message?: string })?.message ?? e.message) }))
    )
  }).pipe(
    Effect.catchTag("SqlError", (e) =>
      new RevokeRefused({
        login, reason: `${String((e.cause as { message?: string })?.message ?? e.message)}. Connect as a user with CREATEROLE ` +
          `(or ADMIN OPTION on ${READER}), or have a superuser run: REVOKE ${READER} FROM ${login}; DROP ROLE ${login}`
      }))
  )
