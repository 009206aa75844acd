import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Data, Effect, Schema } from "effect"

/** The read-only role for consumers: NOLOGIN, granted to logins (`shopsync warehouse grant <login>`). */
export const READER = "shopsync_reader"

/** What a superuser runs where shopsync's user may not create roles (also in the README). */
export const READER_SQL = `CREATE ROLE ${READER} NOLOGIN; GRANT USAGE ON SCHEMA analytics TO ${READER}; ` +
  `GRANT SELECT ON ALL TABLES IN SCHEMA analytics TO ${READER};`

const Access = Schema.Struct({ exists: Schema.Boolean, mayCreate: Schema.Boolean, missingGrants: Schema.Boolean })

/**
 * Creates the read-only role where the connecting user may (superuser or CREATEROLE) and grants it usage on
 * `analytics` and select on its views and tables. Run by migrate after the models: a re-created view loses its
 * grants, so the grants are checked every time and given again when one is missing (no catalogue write otherwise).
 * Returns whether consumers can use the role; when it is missing, `explain` logs what a superuser should run.
 */
export const grantReader = (explain: boolean) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const access = yield* SqlSchema.single({
      Request: Schema.String,
      Result: Access,
      execute: (role) =>
        sql`SELECT EXISTS (SELECT FROM pg_roles WHERE rolname = ${role}) AS exists,
                   (SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user) AS "mayCreate",
                   NOT EXISTS (SELECT FROM pg_roles WHERE rolname = ${role})
                   OR NOT has_schema_privilege(${role}, 'analytics', 'USAGE')
                   OR EXISTS (SELECT FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                              WHERE n.nspname = 'analytics' AND c.relkind IN ('r', 'p', 'v', 'm')
                                AND NOT has_table_privilege(${role}, c.oid, 'SELECT')) AS "missingGrants"`
    })(READER)
    if (!access.exists && !access.mayCreate) {
      if (explain) {
        yield* Effect.logWarning(
          `migrate: the read-only role ${READER} does not exist and this user may not create roles; for read-only ` +
            `consumers, have a superuser run: ${READER_SQL} (later migrations re-grant it by themselves)`
        )
      }
      return false
    }
    // Another database's migrate (roles are cluster-wide) may create it at the same moment.
    if (!access.exists) {
      yield* sql.unsafe(`DO $$ BEGIN CREATE ROLE ${READER} NOLOGIN;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`)
    }
    if (access.missingGrants) {
      yield* sql.unsafe(`GRANT USAGE ON SCHEMA analytics TO ${READER}`)
      yield* sql.unsafe(`GRANT SELECT ON ALL TABLES IN SCHEMA analytics TO ${READER}`)
    }
    return true
  })

export class GrantRefused extends Data.TaggedError("GrantRefused")<{ readonly login: string; readonly reason: string }> {
  override get message() {
    return `could not grant ${READER} to ${this.login}: ${this.reason}`
  }
}

const Login = Schema.Struct({ exists: Schema.Boolean, reader: Schema.Boolean })

/**
 * Grants the read-only role to a login, creating it (LOGIN, with `password`) when it does not exist; an existing
 * login's password changes only when one is given. The statements are built by the server's format() (%I, %L):
 * DDL takes no bind parameters.
 */
export const grantLogin = (login: string, password: string | undefined) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const state = yield* SqlSchema.single({
      Request: Schema.String,
      Result: Login,
      execute: (name) =>
        sql`SELECT EXISTS (SELECT FROM pg_roles WHERE rolname = ${name}) AS exists,
                   EXISTS (SELECT FROM pg_roles WHERE rolname = ${READER}) AS reader`
    })(login)
    if (!state.reader) {
      return yield* new GrantRefused({
        login, reason: `the role ${READER} does not exist: run \`shopsync migrate\` as a user who may create roles, or have a superuser run ${READER_SQL}`
      })
    }
    if (!state.exists && password === undefined) {
      return yield* new GrantRefused({ login, reason: "a new login needs a password" })
    }
    const run = (template: string, a: string, b: string) =>
      Effect.flatMap(
        sql<{ statement: string }>`SELECT format(${template}, ${a}::text, ${b}::text) AS statement`,
        ([row]) => sql.unsafe(row!.statement)
      )
    yield* sql.withTransaction(Effect.gen(function*() {
      if (!state.exists) yield* run("CREATE ROLE %I LOGIN", login, "")
      if (password !== undefined) yield* run("ALTER ROLE %I PASSWORD %L", login, password)
      yield* run("GRANT %I TO %I", READER, login)
    }))
    return { created: !state.exists }
  }).pipe(
    Effect.catchTag("SqlError", (e) =>
      new GrantRefused({
        login, reason: `${String((e.cause as { message?: string })?.message ?? e.message)}. Connect as a user with CREATEROLE ` +
          `(or ADMIN OPTION on ${READER}), or have a superuser run: GRANT ${READER} TO ${login}`
      }))
  )
