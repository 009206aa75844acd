import { Effect, Either, Option, Schema } from "effect"
import { StoreClient } from "../../store-client/client.js"
import { isGone } from "../../store-client/errors.js"
import { Loader, type LoadKind } from "../../warehouse/loader.js"
import type { HeldKey } from "../../warehouse/quarantine.js"
import { screener, type Screened } from "../../warehouse/screen.js"
import type { Doc } from "../walk.js"

/** A child read by itself lacks its parent's id, which its path holds (`/orders/7/refunds/9`). */
const withParent = (doc: unknown, path: string): unknown => {
  const parent = /^\/(?:orders|products)\/(\d+)\//.exec(path)?.[1]
  if (parent === undefined || doc === null || typeof doc !== "object" || "parent_id" in doc) return doc
  return { ...doc, parent_id: Number(parent) }
}

/** The resource's quarantined documents when a stream starts: what its retry reads at its end. */
export const heldBefore = (kind: LoadKind) => Effect.flatMap(Loader, (loader) => loader.held(kind))

/**
 * Reads a resource's quarantined documents again (those `before` names that are still there: the run's own finds
 * were just read), each by its own GET: the store's 404 releases one (it is gone),
 * and the rest are screened and handed to `land`, which loads the ones that fit now (they then leave the quarantine)
 * and quarantines the others once more (returning their ids). A read that fails otherwise leaves its document
 * for the next run. Returns the documents that landed.
 */
export const retryQuarantined = <A extends Doc, E, R>(
  kind: LoadKind,
  schema: Schema.Schema<A, any>,
  land: (screened: Screened<A>) => Effect.Effect<ReadonlyArray<string>, E, R>,
  before: ReadonlyArray<HeldKey>
) =>
  Effect.gen(function*() {
    // Nothing was held when the stream started: the run's own finds were just read.
    if (before.length === 0) return []
    const [store, loader] = yield* Effect.all([StoreClient, Loader])
    const known = new Set(before.map((h) => h.id))
    const held = (yield* loader.held(kind)).flatMap((h) => (h.path === null || !known.has(h.id) ? [] : [{ id: h.id, path: h.path }]))
    if (held.length === 0) return []
    const read = yield* Effect.forEach(held, (h) =>
      store.get(h.path, {}, Schema.Unknown).pipe(
        Effect.map((doc) => Either.right(Option.some(withParent(doc, h.path)))),
        Effect.catchIf(isGone, () => Effect.succeed(Either.right(Option.none()))),
        Effect.catchAll((e) => Effect.succeed(Either.left(e.message))),
        Effect.map((result) => ({ ...h, result }))
      ), { concurrency: store.concurrency })
    for (const r of read) if (Either.isLeft(r.result)) yield* Effect.logWarning(`${kind}: quarantined ${r.id} not read again: ${r.result.left}`)
    const gone = read.filter((r) => Either.isRight(r.result) && Option.isNone(r.result.right)).map((r) => r.id)
    if (gone.length > 0) yield* loader.release(kind, gone)
    const docs = read.flatMap((r) => (Either.isRight(r.result) && Option.isSome(r.result.right) ? [r.result.right.value] : []))
    if (docs.length === 0) return []
    const screened = screener(kind, schema)(docs, true)
    const refused = new Set(yield* land(screened))
    return screened.docs.filter((d) => !refused.has(String(d.id)))
  })
