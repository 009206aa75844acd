import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, type Schema } from "effect"
import type { QueryParams } from "../../store-client/client.js"
import { Loader, type LoadKind } from "../../warehouse/loader.js"
import type { RunContext } from "../context.js"
import { wholeSecond } from "../cursor.js"
import { listingHead } from "../head.js"
import { walkStream } from "../slices.js"
import { SyncState } from "../state.js"
import type { Doc, Listing, WalkPage } from "../walk.js"
import { heldBefore, retryQuarantined } from "./quarantined.js"
import { createdWindow } from "./window.js"

/** A resource read as listings (status any, then trash), each with its own cursor under its own state key. */
export interface Listings<A extends Doc> {
  readonly name: string
  readonly path: string
  readonly kind: LoadKind
  /** The date a sync's cursor follows; a backfill always walks creation dates. */
  readonly field: "modified" | "created"
  readonly schema: Schema.Schema<A, any>
  readonly listings: ReadonlyArray<{ readonly stream: string; readonly params: QueryParams }>
}

/** What a resource's listings gave: rows loaded, and their count before the run's upper bound when it came free. */
export interface Walked {
  readonly rows: number
  /** The sum of every listing's head (undefined when one was walked without: a resume of slices, a backfill). */
  readonly total: number | undefined
}

/**
 * Walks every listing from its cursor; a backfill walks the created dates of its window and
 * moves no cursor. A listing without slices pending is asked for its head first, and not walked when
 * nothing is newer than its cursor. Then the resource's quarantined documents are read again by id.
 * `onDocs` sees each page's documents once they are loaded.
 */
export const walkListings = <A extends Doc>(ctx: RunContext, spec: Listings<A>, onDocs: (docs: ReadonlyArray<A>) => Effect.Effect<void>) =>
  Effect.gen(function*() {
    const onPage = (page: WalkPage<A>) =>
      onDocs(page.docs).pipe(Effect.zipRight(ctx.progress.page(spec.name, page.docs.length, page.total)))
    const held = yield* heldBefore(spec.kind)
    let rows = 0
    let total: number | undefined = 0
    for (const listing of spec.listings) {
      const walk = { path: spec.path, params: listing.params, kind: spec.kind, schema: spec.schema }
      if (ctx.mode.kind === "backfill") {
        total = undefined
        rows += yield* walkStream({ ...walk, field: "created" }, { stream: null, ...createdWindow(ctx.mode, ctx.upper), onPage })
        continue
      }
      const head = yield* headPastCursor({ ...walk, field: spec.field }, listing.stream, ctx.upper)
      if (typeof head === "object" && !head.fresh) {
        total = plus(total, head.total)
        continue
      }
      // A listing never walked is not asked for its head: its walk's first page counts the same rows.
      let first: number | undefined
      const counting = (page: WalkPage<A>) => Effect.suspend(() => {
        first ??= page.total
        return onPage(page)
      })
      rows += yield* walkStream({ ...walk, field: spec.field }, { stream: listing.stream, upper: ctx.upper, onPage: head === "unwalked" ? counting : onPage })
      total = plus(total, head === "unwalked" ? (first ?? 0) : head?.total)
    }
    const [sql, loader] = yield* Effect.all([SqlClient.SqlClient, Loader])
    const landed = yield* retryQuarantined(spec.kind, spec.schema, (page) => sql.withTransaction(loader.load({ kind: spec.kind, ...page })), held)
    if (landed.length > 0) yield* onDocs(landed)
    return { rows: rows + landed.length, total } satisfies Walked
  })

/** A sum that is unknown once one of its parts is. */
const plus = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : a + b)

/**
 * The head of a listing whose walk would start from one cursor (no slices pending), and whether it holds rows past
 * it; "unwalked" for a listing without a cursor, which a walk reads from its start anyway.
 */
const headPastCursor = (spec: Listing, stream: string, upper: number) =>
  Effect.gen(function*() {
    const state = yield* Effect.flatMap(SyncState, (s) => s.read(stream))
    if (state.details.slices !== undefined) return undefined
    if (state.cursor === null) return "unwalked" as const
    const head = yield* listingHead(spec, upper)
    return { total: head.total, fresh: head.newest !== null && head.newest > (wholeSecond(state.cursor) ?? Number.NEGATIVE_INFINITY) }
  })
