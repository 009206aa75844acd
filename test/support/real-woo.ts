import { execFile, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import type { ExternalStore } from "./harness.js"
import { freePort } from "./ports.js"

/**
 * A real WordPress + WooCommerce store (../shared/real-woo next to the checkout's parent, see its README),
 * started fresh in a temporary directory for one test file.
 */
export const REAL_WOO_DIR = process.env["REAL_WOO_DIR"] ??
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../shared/real-woo")

const present = fs.existsSync(path.join(REAL_WOO_DIR, "start.sh"))

/**
 * Whether the real-woo files must skip: only outside CI, where the store kit may simply not be checked out. CI
 * must run them, so there a missing kit fails the run instead of passing it silently.
 */
export const realWooMissing = (): boolean => {
  if (present) return false
  if (process.env["CI"] === "true") throw new Error(`real-woo: ${REAL_WOO_DIR}/start.sh is missing; CI must run the real WooCommerce tests`)
  console.warn(`real-woo: skipped, no store kit at ${REAL_WOO_DIR} (set REAL_WOO_DIR to run these tests)`)
  return true
}

export interface StoreOptions {
  /** RW_HPOS: orders in wp_wc_orders (yes) or in wp_posts (no). */
  readonly hpos: boolean
  /** RW_TIMEZONE (the kit's default: Europe/Paris). */
  readonly timezone?: string
}

export interface RealStore extends ExternalStore {
  readonly dir: string
  /** Runs PHP with WooCommerce loaded; `args` arrive as `$args` (an array); answers what the code echoes, as JSON. */
  readonly php: <T>(code: string, args?: unknown) => Promise<T>
  /** Stops the store and removes its directory. */
  readonly stop: () => Promise<void>
}

const run = promisify(execFile)

const START_LOCK = path.join(os.tmpdir(), "real-woo-start.lock")

/**
 * Runs `start` while no other test file starts a store. start.sh checks for PHP with `php -m | grep -q` under
 * `pipefail`, which now and then reads as "missing" (grep exits first, php gets SIGPIPE) and runs apt-get: two
 * starts at once then fight over apt's lock, and one fails. A directory is created atomically, so it is the lock;
 * one older than five minutes was left by a killed run.
 */
const oneAtATime = async <A>(start: () => Promise<A>): Promise<A> => {
  for (;;) {
    try {
      fs.mkdirSync(START_LOCK)
      break
    } catch {
      const age = Date.now() - (fs.statSync(START_LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now())
      if (age > 300_000) fs.rmSync(START_LOCK, { recursive: true, force: true })
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  }
  try {
    return await start()
  } finally {
    fs.rmSync(START_LOCK, { recursive: true, force: true })
  }
}

/** The last lines of a log file, or what kept it from being read. */
const tail = (file: string) => {
  try {
    return fs.readFileSync(file, "utf8").trim().split("\n").slice(-8).join("\n")
  } catch (e) {
    return String(e)
  }
}
const script = (name: string) => path.join(REAL_WOO_DIR, name)

const readEnv = (file: string): Record<string, string> =>
  Object.fromEntries(fs.readFileSync(file, "utf8").split("\n").flatMap((line) => {
    const at = line.indexOf("=")
    return at > 0 ? [[line.slice(0, at), line.slice(at + 1)]] : []
  }))

/** A fresh store (about 15 s); the first use on a machine also installs PHP and MariaDB (root, apt-get). */
export const startRealStore = async (options: StoreOptions): Promise<RealStore> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "real-woo-"))
  const env = { ...process.env, RW_HPOS: options.hpos ? "yes" : "no", RW_TIMEZONE: options.timezone ?? "Europe/Paris" }
  const stop = async () => {
    await run(script("stop.sh"), [dir]).catch(() => undefined)
    fs.rmSync(dir, { recursive: true, force: true })
  }
  try {
    // A port of ours: start.sh would otherwise ask python3 for one, which a bare CI image may lack.
    await oneAtATime(async () => run(script("start.sh"), [dir, String(await freePort())], { env, maxBuffer: 1 << 20 }))
  } catch (e) {
    // The store's own logs say why (MariaDB slow to start on a busy machine, a PHP error): keep them in the error.
    const logs = ["mariadb.err", "install.log", "php-server.log"].map((name) => `${name}: ${tail(path.join(dir, name))}`).join("\n")
    await stop()
    throw new Error(`real-woo: start.sh failed (${(e as { stderr?: string }).stderr?.trim() || String(e)})\n${logs}`)
  }
  const settings = readEnv(path.join(dir, "store.env"))
  return {
    dir,
    apiUrl: settings["STORE_API_URL"]!,
    consumerKey: settings["STORE_CONSUMER_KEY"]!,
    consumerSecret: settings["STORE_CONSUMER_SECRET"]!,
    php: (code, args) => evalPhp(dir, code, args),
    stop
  }
}

/** Arguments travel base64-encoded inside the code, so no quoting can break them. */
const evalPhp = <T>(dir: string, code: string, args: unknown): Promise<T> =>
  new Promise((resolve, reject) => {
    const child = spawn(script("wp-eval.sh"), [dir, "-"], { stdio: ["pipe", "pipe", "pipe"] })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on("data", (b: Buffer) => out.push(b))
    child.stderr.on("data", (b: Buffer) => err.push(b))
    child.on("error", reject)
    child.on("close", (status) => {
      const text = Buffer.concat(out).toString("utf8")
      if (status !== 0) return reject(new Error(`wp-eval exited ${status}: ${Buffer.concat(err).toString("utf8")}${text}`.slice(0, 4000)))
      try {
        resolve(JSON.parse(text) as T)
      } catch {
        reject(new Error(`wp-eval printed no JSON: ${text.slice(0, 2000)}`))
      }
    })
    const encoded = Buffer.from(JSON.stringify(args ?? null)).toString("base64")
    child.stdin.end(`$args = json_decode(base64_decode('${encoded}'), true);\n${code}\n`)
  })
