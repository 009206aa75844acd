import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Option, Ref } from "effect"
import { StoreClient } from "../../store-client/client.js"
import { Download, ReferenceEntry, SettingGroup, TopSeller, WithId, WithSlug, WithStringId, ZoneMethod } from "../../store-client/schemas.js"
import type { Counts, RunContext, StreamError, StreamNeeds } from "../context.js"
import { type PassToRun, SyncState } from "../state.js"
import type { KeyRange } from "../../warehouse/live-rows.js"
import { keyParents, type Parents, rowParents } from "./parents.js"
import { type Json, type Listing, refreshScopes, type ResourceSpec, retireOrphans } from "./refresh.js"

/** The store's other readable resources, kept by full refreshes of their lists. */
export type ResourceName =
  | "order_notes" | "customer_downloads" | "tax_rates" | "tax_classes" | "product_reviews" | "product_attributes" | "attribute_terms"
  | "product_categories" | "shipping_classes" | "shipping_zones" | "shipping_zone_methods" | "settings" | "reference_data"
  | "system_status_tools" | "webhooks" | "report_top_sellers" | "report_totals"

type Run<In = unknown> = (ctx: RunContext, input: In) => Effect.Effect<Counts, StreamError, StreamNeeds>

const byId = (doc: Json) => String(doc["id"])
const bySlug = (doc: Json) => String(doc["slug"])
const idOrder = { orderby: "id", order: "asc" } as const
const one = (listing: Listing) => () => [listing]

const spec = {
  tax_rates: { table: "store.tax_rates", listings: one({ path: "/taxes", params: idOrder }), paged: true, key: byId, item: (_, k) => `/taxes/${k}`, schema: WithId },
  tax_classes: { table: "store.tax_classes", listings: one({ path: "/taxes/classes" }), paged: false, key: bySlug, schema: WithSlug },
  // status=all is approved and held only: spam and trash are lists of their own.
  product_reviews: {
    table: "store.product_reviews",
    listings: () => ["all", "spam", "trash"].map((status) => ({ path: "/products/reviews", params: { ...idOrder, status } })),
    paged: true,
    key: byId,
    item: (_, k) => `/products/reviews/${k}`,
    schema: WithId
  },
  product_attributes: { table: "store.product_attributes", listings: one({ path: "/products/attributes" }), paged: false, key: byId, schema: WithId },
  attribute_terms: {
    table: "store.attribute_terms",
    child: true,
    listings: (attribute) => [{ path: `/products/attributes/${attribute}/terms`, params: idOrder }],
    paged: true,
    key: byId,
    item: (attribute, k) => `/products/attributes/${attribute}/terms/${k}`,
    schema: WithId
  },
  product_categories: {
    table: "store.product_categories",
    listings: one({ path: "/products/categories", params: idOrder }),
    paged: true,
    key: byId,
    item: (_, k) => `/products/categories/${k}`,
    schema: WithId
  },
  shipping_classes: {
    table: "store.shipping_classes",
    listings: one({ path: "/products/shipping_classes", params: idOrder }),
    paged: true,
    key: byId,
    item: (_, k) => `/products/shipping_classes/${k}`,
    schema: WithId
  },
  shipping_zones: { table: "store.shipping_zones", listings: one({ path: "/shipping/zones" }), paged: false, key: byId, schema: WithId },
  shipping_zone_methods: {
    table: "store.shipping_zone_methods",
    child: true,
    listings: (zone) => [{ path: `/shipping/zones/${zone}/methods` }],
    paged: false,
    key: (doc) => String(doc["instance_id"]),
    schema: ZoneMethod
  },
  order_notes: { table: "store.order_notes", child: true, listings: (order) => [{ path: `/orders/${order}/notes` }], paged: false, key: byId, schema: WithId },
  // A download permission has no id of its own: one per file and order.
  customer_downloads: {
    table: "store.customer_downloads",
    child: true,
    listings: (customer) => [{ path: `/customers/${customer}/downloads` }],
    paged: false,
    key: (doc) => `${String(doc["download_id"])}:${String(doc["order_id"])}`,
    schema: Download
  },
  settings: { table: "store.settings", child: true, listings: (group) => [{ path: `/settings/${group}` }], paged: false, key: byId, schema: WithStringId },
  reference_data: {
    table: "store.reference_data",
    listings: (scope) => [scope === "index" ? { path: "/data" } : scope === "current" ? { path: "/data/currencies/current", single: true } : { path: `/data/${scope}` }],
    paged: false,
    key: (doc) => String(doc["code"] ?? doc["slug"]),
    schema: ReferenceEntry
  },
  system_status_tools: { table: "store.system_status_tools", listings: one({ path: "/system_status/tools" }), paged: false, key: byId, schema: WithStringId },
  // status=all includes paused and disabled webhooks; a trashed one leaves the list.
  webhooks: { table: "store.webhooks", listings: one({ path: "/webhooks", params: { ...idOrder, status: "all" } }), paged: true, key: byId, schema: WithId },
  report_top_sellers: {
    table: "store.report_top_sellers",
    listings: (period) => [{ path: "/reports/top_sellers", params: { period } }],
    paged: false,
    key: (doc) => String(doc["product_id"]),
    schema: TopSeller
  },
  report_totals: { table: "store.report_totals", listings: (report) => [{ path: `/reports/${report}/totals` }], paged: false, key: bySlug, schema: WithSlug }
} satisfies Record<ResourceName, ResourceSpec>

/** The warehouse table each resource stream writes. */
export const resourceTable = (name: ResourceName): string => spec[name].table

const counts = (r: { written: number; deleted: number }, orphans = 0): Counts => ({ rows: r.written, deleted: r.deleted + orphans })

/** A resource with one list: the whole of it every run. Tells its children which keys changed. */
export const whole = (name: ResourceName, output?: Ref.Ref<{ readonly changed: ReadonlyArray<string> }>): Run => () =>
  refreshScopes(spec[name], [""]).pipe(
    Effect.tap((r) => (output ? Ref.set(output, { changed: r.changed }) : Effect.void)),
    Effect.map((r) => counts(r))
  )

/** A resource read through a fixed set of requests (one scope each), all of them every run. */
export const fixed = (name: ResourceName, scopes: ReadonlyArray<string>): Run => () =>
  refreshScopes(spec[name], scopes).pipe(Effect.map((r) => counts(r)))

/** A pass's first run reads at least this many parents, so a small store's pass ends in one run; later shares too. */
const PASS_SHARE_FLOOR = 25

/**
 * The parents of `parents` one run of a full pass reads: at most `percent` of them (SHOPSYNC_CHILDREN_PASS_PERCENT;
 * 100 reads the whole pass in one run), and after the pass's first share only as many as the time since the last
 * share asks for the pass to end within `passHours` (SHOPSYNC_CHILDREN_FULL_PASS_HOURS). A run a few minutes after
 * the last reads a few parents, not a tenth of them: the store serves the pass evenly over the day, and a sync with
 * nothing new stays a few requests.
 */
export const passShare = (parents: number, percent: number, pace?: { readonly sinceLastShare: number; readonly passHours: number }) => {
  if (percent >= 100) return parents
  const cap = Math.max(PASS_SHARE_FLOOR, Math.ceil((parents * percent) / 100))
  if (pace === undefined || pace.passHours <= 0) return cap
  return Math.min(cap, Math.max(1, Math.ceil((parents * Math.max(0, pace.sinceLastShare)) / (pace.passHours * 3600))))
}

/**
 * Whether a run reads no share of a pass under way: the time since its last share asks for fewer than PASS_SHARE_FLOOR
 * parents (all of them, on a store with fewer), by the count the last share saw. A sync every few minutes then spends
 * no statement and no request on the pass; it reads a share when one is worth it, and the pass still ends within its
 * hours, give or take a share's time.
 */
const shareWaits = (parents: number | undefined, percent: number, pace: { readonly sinceLastShare: number; readonly passHours: number } | undefined) =>
  parents !== undefined && pace !== undefined && passShare(parents, percent, pace) < Math.min(PASS_SHARE_FLOOR, parents)

/** Parents a full pass reads from the warehouse at a time (their children are then fetched by batches). */
const PARENTS_PER_READ = 500

/** A run's share of a full pass: the parents after `after`, up to `through` (null: to the end), `count` of them. */
interface Share {
  readonly after: string | null
  readonly through: string | null
  readonly count: number
  /** The live parents, counted by this run. */
  readonly parents: number
  /** The share reaches the pass's end. */
  readonly last: boolean
}

/**
 * A child resource: read for the parents that changed (written by the warehouse since the stream's last successful
 * run began reading them, whoever wrote them: this run's streams, webhooks, a run whose children stream failed; a
 * resource's keys its stream changed this run), and for every live parent on a periodic full pass (what the API
 * cannot signal: a note does not touch its order, a term not its attribute). Both read their parents from the
 * warehouse a page at a time; a full pass checkpoints each batch with its rows, so a pass that stops resumes after
 * the last parent it stored. Children of parents that are gone are marked deleted.
 */
export const children = (name: ResourceName, parentsOf: Effect.Effect<Parents, StreamError, StreamNeeds>): Run => (ctx) =>
  Effect.gen(function*() {
    const parents = yield* parentsOf
    const state = yield* SyncState
    const pass = yield* state.passToRun(name, ctx.childrenFullPassHours, ctx.upper, ctx.childrenQuietDays)
    const after = Option.isSome(pass) ? pass.value.after ?? null : null
    const modifiedFrom = Option.isSome(pass) ? pass.value.recentFrom ?? null : null
    const share = Option.isSome(pass) ? yield* shareOf(ctx, parents, after, pass.value) : undefined
    // The parents that changed, but those the pass reads anyway. On a stream's first pass, those it has not reached
    // yet too: they were never read (on a first sync, every parent changed), so they wait for it rather than undo its share.
    const skip: KeyRange | null = Option.isSome(pass) && pass.value.first ? { after, through: null } : share ? { after, through: share.through, modifiedFrom } : null
    const marks = parents.written ? yield* state.changedMarks(name, ctx.runId) : undefined
    // Without a mark of its own, the parents this run wrote changed (none on a first pass: it reads them all).
    const since = marks === undefined ? null : marks.left ?? (Option.isSome(pass) && pass.value.first ? null : marks.runStart)
    const first = yield* parents.changed(since, skip, null, PARENTS_PER_READ)
    const changed = first.length < PARENTS_PER_READ ? first.length : yield* parents.countChanged(since, skip)
    // The mark moves on once the changed parents are read: left where it was while none were written since (a write
    // that commits late is then still found), and at once without one, so a first run that fails does not make the
    // next take every parent for changed.
    const moveMark = marks !== undefined && (marks.left === undefined || changed > 0)
    if (moveMark && marks.left === undefined) yield* state.leaveMarks(name, { changedFrom: marks.now })
    // Progress in parents read: one request or more each, the longest part of a first sync.
    const parentsRead = (count: number) => ctx.progress.page(name, count, changed + (share?.count ?? 0))
    const recent = yield* readParents(spec[name], (cursor, limit) => (cursor === null ? Effect.succeed(first) : parents.changed(since, skip, cursor, limit)), null, changed, () => Effect.void, parentsRead)
    const full = Option.isSome(pass) && share !== undefined
      ? yield* readParents(spec[name], (cursor, limit) => parents.page(cursor, limit, share.through, modifiedFrom), share.after, share.count, (batch) =>
        state.savePassProgress(name, {
          startedAt: pass.value.startedAt, after: batch[batch.length - 1]!, at: ctx.upper, parents: share.parents,
          ...(modifiedFrom === null ? {} : { recentFrom: modifiedFrom })
        }), parentsRead)
      : { written: 0, deleted: 0 }
    // Orphans: the children of the parents deleted since the last look, every child of the store when there was none
    // (or a full pass ends). That look's mark moves with the changed parents' mark, or is left by the first look.
    const passEnds = Option.isSome(pass) && share?.last === true
    const orphans = yield* parents.retireOrphans(spec[name].table, passEnds ? null : marks?.retired ?? null)
    if (passEnds) yield* state.fullPassDone(name, pass.value.startedAt, modifiedFrom === null ? pass.value.startedAt : pass.value.everyParentAt)
    if (marks !== undefined && (moveMark || marks.retired === undefined)) {
      yield* state.leaveMarks(name, { ...(moveMark ? { changedFrom: marks.now } : {}), retiredFrom: marks.now })
    }
    return { rows: recent.written + full.written, deleted: recent.deleted + full.deleted + orphans }
  })

/** This run's share of a pass after `after`: its size (passShare) and the last parent it reads; undefined when it waits (shareWaits). */
const shareOf = (ctx: RunContext, parents: Parents, after: string | null, pass: PassToRun) =>
  Effect.gen(function*() {
    // A run reads its share of the pass (one request or more per parent); the next runs go on from there.
    const pace = pass.lastShareAt === undefined ? undefined : { sinceLastShare: ctx.upper - pass.lastShareAt, passHours: ctx.childrenFullPassHours }
    if (shareWaits(pass.parents, ctx.childrenPassPercent, pace)) return undefined
    const modifiedFrom = pass.recentFrom ?? null
    const live = yield* parents.count(modifiedFrom)
    const size = passShare(live, ctx.childrenPassPercent, pace)
    const ahead = yield* parents.ahead(after, size, modifiedFrom)
    return ahead.count <= size
      ? { after, through: null, count: ahead.count, parents: live, last: true }
      : { after, through: ahead.nth, count: size, parents: live, last: false } satisfies Share
  })

/** Reads the children of `count` parents after `from`, PARENTS_PER_READ parents from the warehouse at a time (`next` after a cursor). */
const readParents = <R>(
  resource: ResourceSpec,
  next: (cursor: string | null, limit: number) => Effect.Effect<ReadonlyArray<string>, SqlError, R>,
  from: string | null,
  count: number,
  checkpoint: (batch: ReadonlyArray<string>) => Effect.Effect<void, SqlError>,
  onBatch: (scopes: number) => Effect.Effect<void>
) =>
  Effect.gen(function*() {
    let [written, deleted, cursor, left] = [0, 0, from, count]
    while (left > 0) {
      const keys = yield* next(cursor, Math.min(PARENTS_PER_READ, left))
      if (keys.length === 0) break
      const read = yield* refreshScopes(resource, keys, checkpoint, onBatch)
      written += read.written
      deleted += read.deleted
      cursor = keys[keys.length - 1]!
      left -= keys.length
    }
    return { written, deleted }
  })

/** Live parents: rows of a sales table, or the top-level keys of a resource table with those its stream changed. */
export const liveParents = {
  orders: rowParents("orders"),
  customers: rowParents("customers"),
  resource: <E, R>(name: ResourceName, changed: Effect.Effect<Iterable<string | number>, E, R>) => keyParents(spec[name].table, changed)
}

/** Every group the store lists (GET /settings), each refreshed whole; groups that vanish take their options along. */
export const settings: Run = () =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const groups = (yield* store.list("/settings", {}, SettingGroup)).items.map((g) => g.id)
    const refreshed = yield* refreshScopes(spec.settings, groups)
    return counts(refreshed, yield* retireOrphans(spec.settings, groups))
  })
