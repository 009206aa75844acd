import { Data, Effect } from "effect"
import pg from "pg"
import { OWNER } from "./credentials.js"
import { READER } from "./reader-role.js"
import { sqlFile } from "./sql-files.js"

export class WarehouseSetupFailed extends Data.TaggedError("WarehouseSetupFailed")<{ readonly reason: string }> {
  override get message() {
    return `could not set up the embedded warehouse's roles and database: ${this.reason}`
  }
}

export interface SuperuserAccess {
  readonly port: number
  readonly user: string
  readonly password: string
}

/**
 * The startup options of every superuser session. The owner role owns the database and its `public` schema, and
 * may set a search_path on the database (`ALTER DATABASE … SET`) that puts `public` first: a function it plants
 * there under a catalogue name (`public.current_setting`) would then run with the superuser's rights. Options sent
 * at connection beat the database's and roles' settings, from the session's first statement on; `pg_temp` last,
 * so no temporary object shadows a catalogue one. The statements superuser sessions run name their functions and
 * relations by schema too (`pg_catalog.…`). The owner may also set on the database `role` (the session would act
 * as that role) and `local_preload_libraries` (loaded at connection, from $libdir/plugins): both reset here.
 * `session_preload_libraries` it may not set.
 */
export const SUPERUSER_OPTIONS = "-c search_path=pg_catalog,pg_temp -c role=none -c local_preload_libraries="

/** One short superuser session on the embedded server (setup, the stop check, sizes), closed whatever `f` does. */
export const withSuperuser = async <A>(
  server: SuperuserAccess, database: string, f: (client: pg.Client) => Promise<A>, application = "shopsync-setup"
): Promise<A> => {
  const client = new pg.Client({
    host: "127.0.0.1", port: server.port, user: server.user, password: server.password, database,
    application_name: application, options: SUPERUSER_OPTIONS
  })
  await client.connect()
  try {
    return await f(client)
  } finally {
    await client.end()
  }
}

const OWNER_ATTRIBUTES = "LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS"

/** CREATE ROLE unless it exists; a concurrent creator's role counts as existing. */
const ensureRole = async (client: pg.Client, role: string, attributes: string) => {
  const found = await client.query("SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = $1", [role])
  if (found.rowCount !== 0) return
  await client.query(`CREATE ROLE ${client.escapeIdentifier(role)} ${attributes}`).catch((e: { code?: string }) => {
    if (e.code !== "42710" && e.code !== "23505") throw e
  })
}

/**
 * What only the superuser may do, done at every start (a few catalogue reads when nothing is missing), under a
 * session lock so two commands starting together do not race:
 *  - the owner role shopsync connects as (LOGIN, no other attribute: not superuser, cannot create roles or
 *    databases), its password set to the credentials file's;
 *  - the read-only role for consumers (NOLOGIN: logins are granted it, see `warehouse grant`);
 *  - the database, owned by the owner role, and every object of shopsync's schemas in it (sql/access/owner.sql).
 */
export const setupDatabase = (server: SuperuserAccess, ownerPassword: string, database: string) =>
  Effect.tryPromise({
    try: () => setup(server, ownerPassword, database),
    catch: (e) => new WarehouseSetupFailed({ reason: e instanceof Error ? e.message : String(e) })
  })

const setup = (server: SuperuserAccess, ownerPassword: string, database: string) =>
  withSuperuser(server, "postgres", async (client) => {
    await client.query("SELECT pg_catalog.pg_advisory_lock(pg_catalog.hashtext('shopsync:setup'))")
    await ensureRole(client, OWNER, "LOGIN")
    // Also for a role of that name someone made by hand: its attributes are what least privilege says.
    await client.query(`ALTER ROLE ${client.escapeIdentifier(OWNER)} ${OWNER_ATTRIBUTES} PASSWORD ${client.escapeLiteral(ownerPassword)}`)
    await ensureRole(client, READER, "NOLOGIN")
    const found = await client.query<{ owner: string }>(
      "SELECT pg_catalog.pg_get_userbyid(datdba) AS owner FROM pg_catalog.pg_database WHERE datname = $1", [database]
    )
    const name = client.escapeIdentifier(database)
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${name} OWNER ${client.escapeIdentifier(OWNER)}`)
    else if (found.rows[0]!.owner !== OWNER) await client.query(`ALTER DATABASE ${name} OWNER TO ${client.escapeIdentifier(OWNER)}`)
    await withSuperuser(server, database, async (db) => {
      await db.query("SELECT pg_catalog.set_config('shopsync.owner', $1, false)", [OWNER])
      await db.query(sqlFile("access/owner"))
    })
  })
