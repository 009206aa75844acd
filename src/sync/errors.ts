import { Data } from "effect"
import type { SqlError } from "@effect/sql/SqlError"
import type { StoreError } from "../store-client/errors.js"
import { sqlErrorText } from "../warehouse/sql-error.js"

/** Some streams failed; the others ran to the end and their rows are kept. */
export class SyncFailed extends Data.TaggedError("SyncFailed")<{
  readonly runId: number
  readonly failures: ReadonlyArray<{ readonly stream: string; readonly error: string }>
  /** What every stream did, the failed ones included: the command still prints it and pushes contacts. */
  readonly summary: RunSummary
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

/** Another run holds the store's run lock: nothing was done (exit code 75, so cron can tell it from a success). */
export class RunLockHeld extends Data.TaggedError("RunLockHeld")<{ readonly storeId: string; readonly waitedSeconds?: number }> {
  override get message() {
    return this.waitedSeconds === undefined
      ? `another shopsync run holds the lock of store ${this.storeId}; nothing done (use --wait to wait for it)`
      : `another shopsync run still held the lock of store ${this.storeId} after ${this.waitedSeconds} s of waiting; nothing done`
  }
}

/** One stream's outcome in a run. */
export interface StreamResult {
  readonly stream: string
  readonly rows: number
  readonly deleted: number
  readonly seconds: number
  readonly error?: string
  /** The store does not serve the stream, or not to this key: why (it is not a failure). */
  readonly unavailable?: string
  /** Not run, not due yet: why. */
  readonly skipped?: string
}

/** What a stream's line and sync.runs say it did. */
export type StreamOutcome = "done" | "failed" | "unavailable" | "not due" | "skipped"

/** A skip whose reason starts so is a refresh interval not yet passed; any other skip leaves the stream to another run. */
export const NOT_DUE = "not due"

export const streamOutcome = (r: StreamResult): StreamOutcome =>
  r.error !== undefined
    ? "failed"
    : r.unavailable !== undefined
    ? "unavailable"
    : r.skipped?.startsWith(NOT_DUE)
    ? "not due"
    : r.skipped !== undefined
    ? "skipped"
    : "done"

export interface RunSummary {
  readonly runId: number
  readonly streams: ReadonlyArray<StreamResult>
  readonly requests: number
  readonly seconds: number
  /** The resources the run's scheduled reconciliation found drifted (absent: none ran, or it found none). */
  readonly drift?: ReadonlyArray<Drift>
}

/** One drifted resource of a reconciliation: the ids that differed (the first 100 of each kind), and how many were repaired. */
export interface Drift {
  readonly resource: string
  readonly missing: ReadonlyArray<number>
  readonly stale: ReadonlyArray<number>
  readonly gone: ReadonlyArray<number>
  readonly repaired: number
}

/**
 * A route the store lacks (404 rest_no_route: an older version, a plugin removed it) or will not let this key read
 * (401/403 while the sales routes answer): the stream is unavailable on this store, not failed. The reason names
 * the request and the store's answer.
 */
export const unavailableReason = (error: StoreError | SqlError): string | undefined => {
  if (error._tag === "StoreRequestFailed" && error.status === 404 && error.code === "rest_no_route") {
    return `GET ${error.url} answered 404 rest_no_route${error.storeMessage ? ` (${error.storeMessage})` : ""}`
  }
  if (error._tag === "StoreAuthFailed") {
    return `GET ${error.url} answered ${error.status}${error.code ? ` ${error.code}` : ""}${error.storeMessage ? ` (${error.storeMessage})` : ""}`
  }
  return undefined
}

/** A failure in one line; a warehouse error carries PostgreSQL's own message, not just "failed to execute". */
export const errorText = (e: unknown): string =>
  sqlErrorText(e) ??
    (e instanceof Error && e.message ? e.message : typeof e === "object" && e !== null && "message" in e ? String((e as { message: unknown }).message) : String(e))
