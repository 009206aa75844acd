import { spawn, spawnSync } from "node:child_process"
import { Args, Command, HelpDoc, Options } from "@effect/cli"
import { Effect, Option, Redacted } from "effect"
import { databaseUrlConfig } from "../config/settings.js"
import { writeBackup } from "../warehouse/backup.js"
import { readCredentials } from "../warehouse/credentials.js"
import { DatabaseLive, describeDatabase, embeddedUrl, embeddedWarehouse, pgLayer } from "../warehouse/database.js"
import { embeddedLocation, embeddedStatus, startWarehouse, stopWarehouse, WarehouseCommandFailed } from "../warehouse/embedded-control.js"
import { migrate } from "../warehouse/migrate.js"
import { grantLogin, READER } from "../warehouse/reader-role.js"
import { restoreBackup } from "../warehouse/restore.js"
import { revokeLogin } from "../warehouse/revoke-login.js"
import { runningServer } from "../warehouse/server-process.js"
import { sqlShell } from "./sql-shell.js"
import { formatTable } from "../jobs/table.js"
import { shopsyncCommand } from "./invocation.js"

const out = (text: string) => Effect.sync(() => process.stdout.write(`${text}\n`))

/** `start`, `stop` and `url` manage the embedded server: with DATABASE_URL set there is none to manage. */
const embeddedOnly = (what: string) =>
  Effect.flatMap(databaseUrlConfig, (url) =>
    Option.isSome(url)
      ? new WarehouseCommandFailed({
        problem: `DATABASE_URL is set (${describeDatabase(url.value)}), so the warehouse is that server and \`warehouse ${what}\` has no embedded one to manage`,
        fix: "unset DATABASE_URL to use the embedded warehouse, or manage that server with its own tools"
      })
      : Effect.void)

const startCommand = Command.make("start", {}, () =>
  Effect.gen(function*() {
    yield* embeddedOnly("start")
    const { server, started } = yield* startWarehouse
    yield* out(`${started ? "started" : "already running"}: embedded PostgreSQL on 127.0.0.1:${server.port}, database shopsync (data directory ${server.dataDir})`)
    const shopsync = shopsyncCommand()
    yield* out(`read-only access: \`${shopsync} warehouse grant <login>\` creates a login with role ${READER} and prints its URL once`)
    yield* out(`owner URL (read-write): \`${shopsync} warehouse url\`; SQL shell: \`${shopsync} warehouse psql\`; stop: \`${shopsync} warehouse stop\``)
  })).pipe(Command.withDescription(
    "Starts the embedded PostgreSQL and leaves it running after the command ends, for BI tools and psql (127.0.0.1, " +
      "SHOPSYNC_PG_PORT). Other commands join it and leave it running. Migrates the warehouse so the views are there."
  ))

const stopCommand = Command.make("stop", {}, () =>
  Effect.gen(function*() {
    yield* embeddedOnly("stop")
    yield* out((yield* stopWarehouse) ? "stopped the embedded PostgreSQL" : "the embedded PostgreSQL is not running")
  })).pipe(Command.withDescription(
    "Stops the embedded PostgreSQL that `warehouse start` left running, after shopsync commands using it are done " +
      "(sessions of BI tools and psql are ended)."
  ))

const statusCommand = Command.make("status", {}, () =>
  Effect.gen(function*() {
    const configured = yield* databaseUrlConfig
    if (Option.isSome(configured)) return yield* out(`warehouse: ${describeDatabase(configured.value)} (DATABASE_URL)`)
    const { lines } = yield* embeddedStatus
    yield* out(formatTable(lines.map(([what, value]) => ({ what, value })), ["what", "value"]).split("\n").slice(2).join("\n"))
  })).pipe(Command.withDescription(
    "Says whether the embedded PostgreSQL runs (and for whom), its port, data directory, credentials file and the size of database shopsync."
  ))

const readerOption = Options.text("reader").pipe(
  Options.withDescription("print the URL of this read-only login instead (without its password, which shopsync does not keep)"),
  Options.optional
)

const urlCommand = Command.make("url", { reader: readerOption }, ({ reader }) =>
  Effect.gen(function*() {
    const configured = yield* databaseUrlConfig
    if (Option.isSome(configured)) return yield* out(Redacted.value(configured.value))
    const { dataDir, port } = yield* embeddedLocation
    const running = runningServer(dataDir)
    const at = `127.0.0.1:${running?.port ?? port}/shopsync`
    if (Option.isSome(reader)) return yield* out(`postgres://${encodeURIComponent(reader.value)}@${at}`)
    const credentials = yield* readCredentials(dataDir)
    if (credentials === undefined) {
      return yield* new WarehouseCommandFailed({ problem: `${dataDir} has no warehouse yet`, fix: "run `shopsync warehouse start` first" })
    }
    yield* out(`postgres://shopsync:${credentials.ownerPassword}@${at}`)
    yield* Effect.logInfo(`warehouse: that is the owner role shopsync (read-write); for read-only access use \`shopsync warehouse grant <login>\`` +
      (running === undefined ? "; the server is not running: `shopsync warehouse start`" : ""))
  })).pipe(Command.withDescription(
    "Prints a connection URL: DATABASE_URL when set, else the embedded warehouse's owner role shopsync (read-write, " +
      "password from the credentials file), or with --reader LOGIN a read-only login's URL without password."
  ))

const passwordStdinOption = Options.boolean("password-stdin").pipe(
  Options.withDescription("read the login's password from stdin (first line) instead of generating one for a new login")
)

const readStdin = Effect.promise(async () => {
  let text = ""
  for await (const chunk of process.stdin) text += String(chunk)
  return text.split("\n")[0]!.replace(/\r$/, "")
})

/** The roles shopsync itself runs on: never a consumer's login to grant or revoke. */
const OWN_ROLES = ["shopsync", "postgres", READER]

/** A login name, checked while the command line is read (a mistake exits 64). */
const loginArg = (description: string) =>
  Args.text({ name: "login" }).pipe(
    Args.withDescription(description),
    Args.mapEffect((login) =>
      !/^[a-z_][a-z0-9_]{0,62}$/.test(login)
        ? Effect.fail(HelpDoc.p(`"${login}" is not a plain login name: use lower-case letters, digits and _ (at most 63)`))
        : OWN_ROLES.includes(login)
        ? Effect.fail(HelpDoc.p(`"${login}" is one of shopsync's own roles (${OWN_ROLES.join(", ")}), not a consumer's login`))
        : Effect.succeed(login))
  )

/** The warehouse a login is granted or revoked on: its URL, and the role that may manage logins there. */
const loginAdmin = Effect.gen(function*() {
  const configured = yield* databaseUrlConfig
  return Option.isSome(configured)
    ? { url: configured.value, admin: configured.value }
    : yield* Effect.map(embeddedWarehouse, (server) => ({ url: embeddedUrl(server, "owner"), admin: embeddedUrl(server, "superuser") }))
})

const grantCommand = Command.make("grant", {
  login: loginArg("the PostgreSQL login to create or to grant the read-only role to"),
  passwordStdin: passwordStdinOption
}, ({ login, passwordStdin }) =>
  Effect.gen(function*() {
    const password = passwordStdin ? yield* readStdin : undefined
    if (password === "") return yield* new WarehouseCommandFailed({ problem: "stdin held no password", fix: "pipe the password in, e.g. `printf %s \"$PW\" | …`" })
    const { url, admin } = yield* loginAdmin
    yield* migrate.pipe(Effect.provide(pgLayer(url)))
    const granted = yield* grantLogin(login, password).pipe(Effect.provide(pgLayer(admin)))
    const where = new URL(Redacted.value(url))
    yield* out(`${granted.created ? "created login" : "granted to existing login"} ${login}: role ${READER} (reads analytics and store)`)
    const secret = granted.generatedPassword === undefined ? "" : `:${granted.generatedPassword}`
    yield* out(`postgres://${login}${secret}@${where.host}${where.pathname}`)
    if (secret !== "") yield* out("the password is shown this once: keep it in your BI tool or ~/.pgpass")
  }).pipe(Effect.scoped)).pipe(Command.withDescription(
    `Grants the read-only role ${READER} to a login, creating the login when it does not exist (password from ` +
      "--password-stdin, else generated and printed once with its URL). Embedded: as its superuser; with DATABASE_URL: as that user, who needs CREATEROLE."
  ))

const revokeCommand = Command.make("revoke", {
  login: loginArg("the login to take the read-only role from")
}, ({ login }) =>
  Effect.gen(function*() {
    const { admin } = yield* loginAdmin
    const revoked = yield* revokeLogin(login).pipe(Effect.provide(pgLayer(admin)))
    const ended = revoked.sessionsEnded > 0 ? ` (its ${revoked.sessionsEnded} open session(s) ended)` : ""
    yield* out(revoked.dropped
      ? `revoked ${READER} from ${login} and dropped the login${ended}: it can no longer connect`
      : `revoked ${READER} from ${login}: it can no longer read analytics or store; kept the login, since ${revoked.kept}`)
  }).pipe(Effect.scoped)).pipe(Command.withDescription(
    `Takes the read-only role ${READER} back from a login (the inverse of \`warehouse grant\`): it can no longer read ` +
      "analytics or store. A login that was only for that (no other role, no privilege of its own, nothing it owns) is " +
      "dropped, its open sessions ended, so it can no longer connect either. A login that does not exist, or does not " +
      "hold the role, is an error. Embedded: as its superuser; with DATABASE_URL: as that user, who needs CREATEROLE."
  ))

const builtinOption = Options.boolean("builtin").pipe(
  Options.withDescription("use shopsync's own SQL shell even when psql is installed")
)

/** psql from PATH with the connection in its environment (a password in argv would show in `ps`). */
const runPsql = (url: string) =>
  Effect.async<number>((resume) => {
    const u = new URL(url)
    const env = {
      ...process.env, PGHOST: u.hostname, PGPORT: u.port || "5432", PGDATABASE: decodeURIComponent(u.pathname.slice(1)),
      PGUSER: decodeURIComponent(u.username), PGPASSWORD: decodeURIComponent(u.password),
      ...(u.searchParams.get("sslmode") ? { PGSSLMODE: u.searchParams.get("sslmode")! } : {})
    }
    spawn("psql", [], { stdio: "inherit", env }).on("close", (code) => resume(Effect.succeed(code ?? 1)))
  })

const psqlCommand = Command.make("psql", { builtin: builtinOption }, ({ builtin }) =>
  Effect.gen(function*() {
    const configured = yield* databaseUrlConfig
    const url = Redacted.value(Option.isSome(configured) ? configured.value : embeddedUrl(yield* embeddedWarehouse, "owner"))
    const havePsql = !builtin && spawnSync("psql", ["--version"]).status === 0
    if (havePsql) process.exitCode = yield* runPsql(url)
    else yield* Effect.promise(() => sqlShell(url))
  }).pipe(Effect.scoped)).pipe(Command.withDescription(
    "Opens an interactive SQL shell on the warehouse as its owner (embedded: started for the session when not running): " +
      "psql from PATH when installed, else a built-in one (statements end with ';', \\d lists tables and views, \\q quits)."
  ))

const fileArg = (what: string) => Args.file({ name: "file" }).pipe(Args.withDescription(what))

const backupCommand = Command.make("backup", { file: fileArg("the backup file to write (replaced if it exists; a symbolic link there is refused)") }, ({ file }) =>
  Effect.gen(function*() {
    yield* migrate
    const counts = yield* writeBackup(file)
    yield* out(`backup written to ${file}: ${counts.length} tables, ${counts.reduce((n, c) => n + c.rows, 0)} rows`)
  }).pipe(Effect.provide(DatabaseLive))).pipe(Command.withDescription(
    "Writes a logical backup of the warehouse (every table of store, sync, marketing and analytics, from one snapshot, " +
      "and the migration level) to FILE; works with the embedded warehouse and with DATABASE_URL."
  ))

const restoreCommand = Command.make("restore", { file: fileArg("a file written by `shopsync warehouse backup`") }, ({ file }) =>
  Effect.gen(function*() {
    const { counts, logins } = yield* restoreBackup(file)
    yield* out(`restored ${file}: ${counts.length} tables, ${counts.reduce((n, c) => n + c.rows, 0)} rows`)
    yield* out(loginsNote(logins))
  }).pipe(Effect.provide(DatabaseLive))).pipe(Command.withDescription(
    "Restores a backup into a fresh warehouse (a new SHOPSYNC_DATA_DIR, or an empty database as DATABASE_URL): the schema at " +
      "the backup's level, its rows, then this version's migrations and the daily totals. Refuses a warehouse holding rows. " +
      "Logins are not in a backup (they belong to the server, not the database): it names those to re-create with `warehouse grant`."
  ))

/** Restore's last line: the read-only logins a backup cannot carry, to make again (each gets a new password). */
const loginsNote = (logins: ReadonlyArray<string> | undefined) => {
  const grant = `${shopsyncCommand()} warehouse grant`
  if (logins === undefined) {
    return `logins are not in a backup: re-create each read-only login the old warehouse had with \`${grant} <login>\``
  }
  if (logins.length === 0) return "logins: a backup carries none, and this server lacks none of those the backup's warehouse had"
  return `logins are not in a backup: re-create ${logins.join(", ")} with ${logins.map((l) => `\`${grant} ${l}\``).join(", ")} ` +
    "(each gets a new password; --password-stdin keeps the old one)"
}

export const warehouseCommand = Command.make("warehouse").pipe(
  Command.withDescription(
    "Runs the warehouse for the people who query it. Start/stop/status of the embedded PostgreSQL, connection URLs, " +
      "read-only logins (grant, revoke), an SQL shell, backup and restore."
  ),
  Command.withSubcommands([
    startCommand, stopCommand, statusCommand, urlCommand, grantCommand, revokeCommand, psqlCommand, backupCommand, restoreCommand
  ])
)
