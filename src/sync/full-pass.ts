import { Effect } from "effect"
import { readState, saveCursor } from "../warehouse/writer.js"
import type { RunContext } from "./context.js"

/**
 * What the API does not signal (a note does not touch its order, customers have no modified filter) is
 * caught by a periodic pass over everything: due when `stream` has had none yet, or `hours` ago (0: every run).
 */
export const fullPassDue = (ctx: RunContext, stream: string, hours: number) =>
  Effect.map(readState(ctx.storeId, stream), (state) => hours <= 0 || ctx.upper - Number(state.details["lastFullPass"] ?? 0) >= hours * 3600)

/** Records that `stream` read everything in this run (as of its upper bound). */
export const fullPassDone = (ctx: RunContext, stream: string) => saveCursor(ctx.storeId, stream, null, 0, { lastFullPass: ctx.upper })
