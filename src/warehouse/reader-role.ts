import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Data, Effect, Schema } from "effect"
import { randomPassword } from "./credentials.js"

/** The read-only role for consumers: NOLOGIN, granted to logins (`shopsync warehouse grant <login>`). */
export const READER = "shopsync_reader"

/**
 * What the role reads. `store` too: the analytics views call functions (analytics.day_totals) that run with the
 * caller's privileges and read store tables; and what store holds beyond them (customers' addresses) is what
 * analytics.marketing_contacts shows anyway. `sync` and `marketing` (state, outbox) stay shopsync's own.
 */
export const READER_SCHEMAS = ["analytics", "store"]

/** What a superuser runs where shopsync's user may not create roles (also in docs/analytics.md). */
export const READER_SQL = `CREATE ROLE ${READER} NOLOGIN;`

const Access = Schema.Struct({ exists: Schema.Boolean, mayCreate: Schema.Boolean, missingGrants: Schema.Boolean })

/**
 * Creates the read-only role where the connecting user may (superuser or CREATEROLE) and grants it usage on
 * READER_SCHEMAS and select on their views and tables. Run by migrate after the models: a re-created view loses its
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
                   OR EXISTS (SELECT FROM pg_namespace n WHERE n.nspname = ANY (${READER_SCHEMAS}::text[])
                                AND NOT has_schema_privilege(${role}, n.oid, 'USAGE'))
                   OR EXISTS (SELECT FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                              WHERE n.nspname = ANY (${READER_SCHEMAS}::text[]) AND c.relkind IN ('r', 'p', 'v', 'm')
                                AND NOT has_table_privilege(${role}, c.oid, 'SELECT')) AS "missingGrants"`
    })(READER)
    if (!access.exists && !access.mayCreate) {
      if (explain) {
        yield* Effect.logWarning(
          `migrate: the read-only role ${READER} does not exist and this user may not create roles; for read-only ` +
            `consumers, have a superuser run: ${READER_SQL} (the next \`shopsync migrate\` grants it what it reads)`
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
      for (const schema of READER_SCHEMAS) {
        yield* sql.unsafe(`GRANT USAGE ON SCHEMA ${schema} TO ${READER}`)
        yield* sql.unsafe(`GRANT SELECT ON ALL TABLES IN SCHEMA ${schema} TO ${READER}`)
      }
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
 * Grants the read-only role to a login, creating it when it does not exist (with the password given, else a random
 * one, returned to be shown once); an existing login's password changes only when one is given. The statements are built by the server's format() (%I, %L):
 * DDL takes no bind parameters. Names are schema-qualified: on the embedded server this runs as superuser in a
 * database whose `public` the owner role controls.
 */
export const grantLogin = (login: string, given: string | undefined) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const state = yield* SqlSchema.single({
      Request: Schema.String,
      Result: Login,
      execute: (name) =>
        sql`SELECT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = ${name}) AS exists,
                   EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = ${READER}) AS reader`
    })(login)
    if (!state.reader) {
      return yield* new GrantRefused({
        login, reason: `the role ${READER} does not exist: run \`shopsync migrate\` as a user who may create roles, or have a superuser run ${READER_SQL} and run \`shopsync migrate\` again`
      })
    }
    const password = given ?? (state.exists ? undefined : randomPassword())
    const run = (template: string, a: string, b: string) =>
      Effect.flatMap(
        sql<{ statement: string }>`SELECT pg_catalog.format(${template}, ${a}::pg_catalog.text, ${b}::pg_catalog.text) AS statement`,
        ([row]) => sql.unsafe(row!.statement)
      )
    yield* sql.withTransaction(Effect.gen(function*() {
      if (!state.exists) yield* run("CREATE ROLE %I LOGIN", login, "")
      if (password !== undefined) yield* run("ALTER ROLE %I PASSWORD %L", login, password)
      yield* run("GRANT %I TO %I", READER, login)
    }))
    return { created: !state.exists, generatedPassword: given === undefined ? password : undefined }
  }).pipe(
    Effect.catchTag("SqlError", (e) =>
      new GrantRefused({
        login, reason: `${String((e.cause as { message?: string })?.message ?? e.message)}. Connect as a user with CREATEROLE ` +
          `(or ADMIN OPTION on ${READER}), or have a superuser run: GRANT ${READER} TO ${login}`
      }))
  )
