/**
 * The sync's spans, named once here so the tree reads the same in every backend:
 *   sync.run (store, mode, streams)
 *   └ sync.stream (stream; rows, deleted, skipped, error when it ended so)
 *     └ sync.walk (path, kind: a listing walked in slices)
 *       └ sync.slice (its key and bounds; the pieces a slice is split into are sync.slice beneath it)
 *         ├ store.request → store.attempt        reading a page (store-client/request.ts)
 *         └ sync.page (docs)                    the page and its checkpoint: one sql.transaction
 *           └ sql.transaction → warehouse.load → warehouse.merge → sql.transaction (a savepoint) → sql.execute
 * (sql.transaction and sql.execute are @effect/sql's own: db.query.text is the statement with placeholders, no values.)
 * Attributes hold names, counts and bounds: never a key, a token, a header or a document.
 */
import { Effect } from "effect"
import { StoreClient } from "../store-client/client.js"
import type { SyncRequest } from "./context.js"
import type { StreamResult } from "./errors.js"

/** The attributes of a whole sync or backfill of one store (its span is runSync's own, Effect.fn "sync.run"). */
export const runAttributes = (request: SyncRequest) =>
  Effect.flatMap(StoreClient, (store) =>
    Effect.annotateCurrentSpan({ "shopsync.store": store.storeId, "shopsync.mode": request.mode.kind, "shopsync.streams": request.streams.join(",") }))

/** One stream of a run, with how it ended. */
export const streamSpan = (stream: string) => <E, R>(self: Effect.Effect<StreamResult, E, R>) =>
  self.pipe(
    Effect.tap((r) =>
      Effect.annotateCurrentSpan({
        "shopsync.rows": r.rows,
        "shopsync.deleted": r.deleted,
        ...(r.skipped === undefined ? {} : { "shopsync.skipped": r.skipped }),
        ...(r.error === undefined ? {} : { "shopsync.error": r.error })
      })),
    Effect.withSpan("sync.stream", { attributes: { "shopsync.stream": stream } })
  )

/** Seconds since the epoch as the store's dates read (UTC), for bounds; "open" when unbounded. */
const bound = (at: number | null | undefined) => (at === null || at === undefined ? "open" : new Date(at * 1000).toISOString())

export const walkSpan = (path: string, kind: string, stream: string | null) =>
  Effect.withSpan("sync.walk", { attributes: { "shopsync.path": path, "shopsync.kind": kind, ...(stream === null ? {} : { "shopsync.stream": stream }) } })

export const sliceSpan = (slice: { readonly key: string; readonly lower: { readonly at: number } | null; readonly upper: number | null }) =>
  Effect.withSpan("sync.slice", { attributes: { "shopsync.slice": slice.key, "shopsync.lower": bound(slice.lower?.at), "shopsync.upper": bound(slice.upper) } })

export const pageSpan = (docs: number, rejected: number) =>
  Effect.withSpan("sync.page", { attributes: { "shopsync.docs": docs, "shopsync.rejected": rejected } })
