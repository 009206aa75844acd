import * as os from "node:os"

/** SIGTERM for 15: the name a stop line gives. */
export const signalName = (signal: number): string =>
  Object.entries(os.constants.signals).find(([, number]) => number === signal)?.[0] ?? `signal ${signal}`

/**
 * `npm run shopsync …` runs the CLI under `sh -c`: `kill -TERM` on npm ends npm and that shell, not the CLI, which went
 * on as an orphan holding the store's lock. Under npm (which sets npm_lifecycle_event), a CLI whose parent is gone stops
 * as on SIGTERM, within a second. Only then: other launchers signal the CLI itself (cron's shell, systemd, a container's
 * PID 1), and `nohup shopsync sync &` must outlive the shell that started it.
 */
export const stopWhenOrphanedUnderNpm = (env: NodeJS.ProcessEnv = process.env): void => {
  if (env.npm_lifecycle_event === undefined) return
  const parent = process.ppid
  const timer = setInterval(() => {
    if (process.ppid === parent) return
    clearInterval(timer)
    process.kill(process.pid, "SIGTERM")
  }, 1000)
  timer.unref()
}
