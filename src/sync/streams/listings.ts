import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, type Schema } from "effect"
import type { QueryParams } from "../../store-client/client.js"
import { Loader, type LoadKind } from "../../warehouse/loader.js"
import type { RunContext } from "../context.js"
import { walkStream } from "../slices.js"
import type { Doc, WalkPage } from "../walk.js"
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

/**
 * Walks every listing from its cursor; a backfill walks the created dates of its window and
 * moves no cursor. Then the resource's quarantined documents are read again by id. `onDocs` sees
 * each page's documents once they are loaded.
 */
export const walkListings = <A extends Doc>(ctx: RunContext, spec: Listings<A>, onDocs: (docs: ReadonlyArray<A>) => Effect.Effect<void>) =>
  Effect.gen(function*() {
    const onPage = (page: WalkPage<A>) =>
      onDocs(page.docs).pipe(Effect.zipRight(ctx.progress.page(spec.name, page.docs.length, page.total)))
    const held = yield* heldBefore(spec.kind)
    let rows = 0
    for (const listing of spec.listings) {
      const walk = { path: spec.path, params: listing.params, kind: spec.kind, schema: spec.schema }
      rows += yield* (ctx.mode.kind === "backfill"
        ? walkStream({ ...walk, field: "created" }, { stream: null, ...createdWindow(ctx.mode, ctx.upper), onPage })
        : walkStream({ ...walk, field: spec.field }, { stream: listing.stream, upper: ctx.upper, onPage }))
    }
    const [sql, loader] = yield* Effect.all([SqlClient.SqlClient, Loader])
    const landed = yield* retryQuarantined(spec.kind, spec.schema, (page) => sql.withTransaction(loader.load({ kind: spec.kind, ...page })), held)
    if (landed.length > 0) yield* onDocs(landed)
    return rows + landed.length
  })
