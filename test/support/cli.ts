import { spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { inject } from "vitest"

const root = path.resolve(fileURLToPath(new URL("../..", import.meta.url)))

export interface CliRun {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * The command that starts the CLI: the compiled entry test/support/build-cli.ts built for this run (dist/ or
 * .test-dist/) under plain node; the sources under tsx when no build was provided (SHOPSYNC_TEST_CLI=src, or a
 * project without that global setup).
 */
const cliCommand = (): ReadonlyArray<string> => {
  const entry = inject("cliEntry")
  return entry ? [entry] : ["--import", "tsx", path.join(root, "src/bin/shopsync.ts")]
}

/** Runs the real CLI as a child process, as cron would; `input` on its stdin, if given. */
export const startCli = (args: ReadonlyArray<string>, env: Record<string, string | undefined> = {}, input?: string) => {
  const child = spawn(process.execPath, [...cliCommand(), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SHOPSYNC_CONFIG: "/dev/null", ...env },
    stdio: ["pipe", "pipe", "pipe"]
  })
  child.stdin.end(input ?? "")
  let stdout = ""
  let stderr = ""
  child.stdout.on("data", (d) => (stdout += String(d)))
  child.stderr.on("data", (d) => (stderr += String(d)))
  const done = new Promise<CliRun>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }))
  )
  /** What the process has written so far. */
  const output = () => ({ stdout, stderr })
  return { child, done, output }
}

export const runCli = (args: ReadonlyArray<string>, env: Record<string, string | undefined> = {}, input?: string) => startCli(args, env, input).done

/** Stops started CLIs still running as a service manager would: SIGTERM, then SIGKILL after `graceMs`. */
export const stopAll = (runs: ReadonlyArray<ReturnType<typeof startCli>>, graceMs: number) =>
  Promise.all(runs.filter((run) => run.child.exitCode === null && run.child.signalCode === null).map((run) =>
    new Promise<void>((resolve) => {
      const force = setTimeout(() => run.child.kill("SIGKILL"), graceMs)
      run.child.on("exit", () => (clearTimeout(force), resolve()))
      run.child.kill("SIGTERM")
    })))
