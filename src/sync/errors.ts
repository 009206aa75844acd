import { Data } from "effect"
import { sqlErrorText } from "../warehouse/sql-error.js"

/** Some streams failed; the others ran to the end and their rows are kept. */
export class SyncFailed extends Data.TaggedError("SyncFailed")<{
  readonly runId: number
  readonly failures: ReadonlyArray<{ readonly stream: string; readonly error: string }>
}> {
  /** `stream: error; …`, as sync.runs records it. */
  get list() {
    return this.failures.map((f) => `${f.stream}: ${f.error}`).join("; ")
  }

  override get message() {
    return `sync run ${this.runId} failed in ${this.failures.length} stream(s): ${this.list}. ` +
      `Rows loaded before the failure are kept and each stream resumes from its last checkpoint on the next run.`
  }
}

/** A failure in one line; a warehouse error carries PostgreSQL's own message, not just "failed to execute". */
export const errorText = (e: unknown): string =>
  sqlErrorText(e) ??
    (e instanceof Error && e.message ? e.message : typeof e === "object" && e !== null && "message" in e ? String((e as { message: unknown }).message) : String(e))
