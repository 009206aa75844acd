import { Command } from "@effect/cli"
import { Data, Effect } from "effect"
import { logOutcome } from "../sync/outcome.js"
import { type Check, marketingChecks, storeChecksConfigured, warehouseChecks } from "./checks.js"
import { forStore } from "./errors.js"

/** Exit codes of `check` (docs/operating.md, "Exit codes"): which part failed; 6 when more than one did. */
export const CHECK_EXIT = { store: 3, warehouse: 4, marketing: 5, several: 6 } as const

/** Some checks failed: the command exits with `exitCode` (see CHECK_EXIT). */
export class ChecksFailed extends Data.TaggedError("ChecksFailed")<{ readonly failed: ReadonlyArray<string>; readonly exitCode: number }> {
  override get message() {
    return `check: ${this.failed.length} check(s) failed: ${this.failed.join(", ")}`
  }
}

const MARK = { ok: "ok", failed: "FAILED", unavailable: "n/a", skipped: "skipped" } as const

/** One line per check on stdout (and its fix); a JSON log line per check when stderr is not a terminal. */
const report = (check: Check) =>
  Effect.gen(function*() {
    process.stdout.write(`${MARK[check.status].padEnd(8)}${check.check.padEnd(34)}${check.detail}\n${check.fix ? `${" ".repeat(8)}fix: ${check.fix}\n` : ""}`)
    if (process.stderr.isTTY === true) return
    const line = `${check.check}: ${check.status}, ${check.detail}${check.fix ? ` (fix: ${check.fix})` : ""}`
    yield* (check.status === "failed" ? Effect.logError(line) : Effect.logInfo(line)).pipe(Effect.annotateLogs({ ...check }))
  })

const exitCodeOf = (failed: ReadonlyArray<string>) => {
  const parts = [...new Set(failed.map((c) => c.split(".")[0] as keyof typeof CHECK_EXIT))]
  return parts.length > 1 ? CHECK_EXIT.several : CHECK_EXIT[parts[0]!]
}

export const checkCommand = Command.make("check", {}, () =>
  forStore("check", () =>
    Effect.gen(function*() {
      const checks = [...(yield* storeChecksConfigured), ...(yield* warehouseChecks), ...(yield* marketingChecks)]
      yield* Effect.forEach(checks, report, { discard: true })
      const failed = checks.filter((c) => c.status === "failed").map((c) => c.check)
      const counts = { checks: checks.length, failed: failed.length, unavailable: checks.filter((c) => c.status === "unavailable").length }
      if (failed.length === 0) {
        return yield* logOutcome("info", `check: all ${checks.length} checks passed`, { command: "check", outcome: "succeeded", ...counts })
      }
      const failure = new ChecksFailed({ failed, exitCode: exitCodeOf(failed) })
      yield* logOutcome("error", failure.message, { command: "check", outcome: "failed", failed_checks: failed, ...counts }, failure)
      return yield* failure
    }))).pipe(
    Command.withDescription(
      "Tests the setup without syncing or writing any data. One line per check, with the fix when one fails: the store (reachable, " +
        "TLS certificate trusted, consumer key accepted, and which streams' routes it serves: one small request each), the warehouse " +
        "(connects, migration level, this role may write: a test row is rolled back) and, when MARKETING_* is set, the marketing " +
        "service (a token is obtained). Exit codes: 0 every check passed (routes the store does not serve are listed, not failures); " +
        "3 a store check failed; 4 a warehouse check failed; 5 the marketing check failed; 6 checks of several parts failed; " +
        "1 the check could not run."
    )
  )
