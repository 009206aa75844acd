import { Effect, Option } from "effect"
import { StoreClient } from "../../store-client/client.js"
import { LiveRows } from "../../warehouse/live-rows.js"
import type { Outputs, RunContext } from "../context.js"
import { SyncState } from "../state.js"
import { readVariations } from "./products.js"

/** Variable products whose variations are read between two checkpoints of the pass. */
const BATCH = 50

/**
 * Every variable product's variations, on a full pass every SHOPSYNC_CHILDREN_FULL_PASS_HOURS: a variation's edit
 * need not touch its product, so the products stream (which reads the variations of the products that changed)
 * cannot see it. The pass checkpoints after each batch of products and resumes after the last one it stored; the
 * products this run's products stream already read are not read again.
 */
export const syncVariations = (ctx: RunContext, products: Effect.Effect<Outputs["products"]>) =>
  Effect.gen(function*() {
    const state = yield* SyncState
    const pass = yield* state.passToRun("variations", ctx.childrenFullPassHours, ctx.upper)
    if (Option.isNone(pass)) return { rows: 0, deleted: 0 }
    const store = yield* StoreClient
    const { startedAt } = pass.value
    const after = Number(pass.value.after ?? 0)
    const read = (yield* products).variable
    const todo = (yield* Effect.flatMap(LiveRows, (live) => live.variableProducts)).filter((id) => id > after && !read.has(id))
    let rows = 0
    for (let i = 0; i < todo.length; i += BATCH) {
      const batch = todo.slice(i, i + BATCH)
      const counts = yield* Effect.forEach(batch, readVariations, { concurrency: store.concurrency })
      rows += counts.reduce((n, c) => n + c, 0)
      yield* state.savePassProgress("variations", { startedAt, after: String(batch[batch.length - 1]) })
    }
    yield* state.fullPassDone("variations", startedAt)
    return { rows, deleted: 0 }
  })
