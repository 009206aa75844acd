/**
 * The processes of the workers and thousand-stores phases (bench/workers.ts, bench/thousand-stores.ts): the store
 * fleet (bench/store-fleet.ts, many simulated stores in one process) and `shopsync worker` processes (the compiled
 * CLI), with what their output tells: the shards a worker holds, the syncs it finished and the scheduled syncs it
 * skipped because their slot ended while they waited; and what both phases read of them (CPU, the warehouse's runs).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import * as readline from "node:readline"
import pg from "pg"
import { freePort } from "../test/support/ports.js"

export interface FleetStore {
  readonly storeId: string
  readonly url: string
  readonly key: string
  readonly secret: string
}

export interface Fleet {
  readonly pid: number
  readonly stores: ReadonlyArray<FleetStore>
  /** Every request of every store waits `ms` first (0: none); resolves once the fleet has applied it. */
  readonly setLatency: (ms: number) => Promise<void>
  readonly stop: () => Promise<void>
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", () => resolve())
  })

export const startFleet = (root: string, options: { stores: number; orders: number; changeMs: number }) =>
  new Promise<Fleet>((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "bench/store-fleet.ts"),
      "--stores", String(options.stores), "--orders", String(options.orders), "--change-ms", String(options.changeMs)],
    { cwd: root, stdio: ["pipe", "pipe", "inherit"] })
    const stores: FleetStore[] = []
    const waiting = new Map<string, () => void>()
    readline.createInterface({ input: child.stdout! }).on("line", (line) => {
      const [word, ...rest] = line.split(" ")
      if (word === "STORE") stores.push({ storeId: rest[0]!, url: rest[1]!, key: rest[2]!, secret: rest[3]! })
      if (word === "OK") waiting.get(rest.join(" "))?.()
      if (word !== "READY") return
      resolve({
        pid: child.pid!,
        stores,
        setLatency: (ms) => new Promise<void>((done) => {
          waiting.set(`latency ${ms}`, done)
          child.stdin!.write(`latency ${ms}\n`)
        }),
        stop: async () => {
          child.kill("SIGTERM")
          await exited(child)
        }
      })
    })
    child.on("exit", (code) => reject(new Error(`store fleet exited with ${code}`)))
  })

export interface WorkerProcess {
  readonly address: string
  readonly pid: number
  /** The shards it said it holds last ("worker: holds N of 300 shards"), undefined before it said. */
  readonly shards: () => number | undefined
  /** Syncs it finished, so far: the summary lines of its succeeded sync runs ("run N succeeded", command sync). */
  readonly syncsDone: () => number
  /** Scheduled syncs it dropped because their slot ended while they waited for a permit. */
  readonly syncsSkipped: () => number
  readonly stderr: () => string
  /** SIGTERM: it finishes its running syncs and hands its shards over before it exits. */
  readonly stop: () => Promise<void>
}

const count = (text: string, pattern: RegExp) => text.match(pattern)?.length ?? 0

export const startWorker = async (root: string, env: Record<string, string>, concurrency: number): Promise<WorkerProcess> => {
  const [port, httpPort, adminPort] = [await freePort(), await freePort(), await freePort()]
  const child = spawn(process.execPath, [path.join(root, "dist/bin/shopsync.js"), "worker"], {
    cwd: root,
    env: { ...process.env, SHOPSYNC_CONFIG: "/dev/null", ...env, SHOPSYNC_RUNNER_HOST: "127.0.0.1",
      SHOPSYNC_RUNNER_PORT: String(port), SHOPSYNC_RUNNER_CONCURRENCY: String(concurrency),
      SHOPSYNC_HTTP_PORT: String(httpPort), SHOPSYNC_ADMIN_PORT: String(adminPort) },
    stdio: ["ignore", "ignore", "pipe"]
  })
  let stderr = ""
  child.stderr!.on("data", (d) => (stderr += String(d)))
  return {
    address: `127.0.0.1:${port}`,
    pid: child.pid!,
    shards: () => {
      const all = [...stderr.matchAll(/holds (\d+) of 300 shards/g)]
      return all.length === 0 ? undefined : Number(all.at(-1)![1])
    },
    syncsDone: () => count(stderr, /"message":"run \d+ succeeded[^\n]*"command":"sync"/g),
    syncsSkipped: () => count(stderr, /store [\w.-]+: skipped [^,]*, its interval ended while it waited/g),
    stderr: () => stderr,
    stop: async () => {
      const force = setTimeout(() => child.kill("SIGKILL"), 30_000)
      child.kill("SIGTERM")
      await exited(child)
      clearTimeout(force)
    }
  }
}

/** Runs the compiled CLI to its end: its exit code and output. */
export const runCli = (root: string, args: ReadonlyArray<string>, env: Record<string, string>) =>
  new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, [path.join(root, "dist/bin/shopsync.js"), ...args], {
      cwd: root, env: { ...process.env, SHOPSYNC_CONFIG: "/dev/null", ...env }, stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (d) => (output += String(d)))
    child.stderr.on("data", (d) => (output += String(d)))
    child.on("close", (code) => resolve({ code, output }))
  })

/** CPU seconds of the measured programs. */
export interface Cpu {
  readonly workers: number
  readonly postgres: number
  readonly simulator: number
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
export const round = (n: number, digits = 2) => Number(n.toFixed(digits))
const ticks = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100

/** utime, stime, cutime, cstime of a process in seconds, and its parent's pid: /proc/<pid>/stat. */
const stat = (pid: number) => {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return { ppid: Number(fields[1]), own: (Number(fields[11]) + Number(fields[12])) / ticks, children: (Number(fields[13]) + Number(fields[14])) / ticks }
  } catch {
    return undefined
  }
}

/** The server's CPU: the postmaster's own and its exited backends', plus every live backend's. */
const postgresCpu = (postmaster: number) => {
  const main = stat(postmaster)
  let total = (main?.own ?? 0) + (main?.children ?? 0)
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    const s = stat(Number(entry))
    if (s?.ppid === postmaster) total += s.own
  }
  return total
}

export const cpuNow = (ctx: { readonly postgres: number }, fleet: Fleet, workers: ReadonlyArray<WorkerProcess>): Cpu => ({
  workers: workers.reduce((sum, w) => sum + (stat(w.pid)?.own ?? 0), 0),
  postgres: postgresCpu(ctx.postgres),
  simulator: stat(fleet.pid)?.own ?? 0
})

export const rows = async <T>(url: string, text: string, params: unknown[] = []) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(text, params)).rows as T[]
  } finally {
    await client.end()
  }
}

export const waitUntil = async (what: string, check: () => Promise<boolean> | boolean, timeoutMs: number) => {
  for (const started = Date.now(); Date.now() - started < timeoutMs; await sleep(500)) if (await check()) return
  throw new Error(`bench: ${what} did not happen within ${timeoutMs / 1000} s`)
}

/** The live workers hold all 300 shards between them, each some. */
export const balanced = (workers: ReadonlyArray<WorkerProcess>) => () => {
  const shards = workers.map((w) => w.shards())
  return shards.every((n) => n !== undefined && n > 0) && shards.reduce<number>((sum, n) => sum + (n ?? 0), 0) === 300
}

/**
 * `body` with the fleet and the workers it starts (pushed onto `workers`): on a failure each worker's last output is
 * printed; the workers and the fleet are stopped either way.
 */
export const withFleet = async <A>(fleet: Fleet, workers: ReadonlyArray<WorkerProcess>, body: () => Promise<A>): Promise<A> => {
  try {
    return await body()
  } catch (e) {
    for (const w of workers) console.error(`worker ${w.address}:\n${w.stderr().slice(-3000)}`)
    throw e
  } finally {
    await Promise.all(workers.map((w) => w.stop()))
    await fleet.stop()
  }
}
