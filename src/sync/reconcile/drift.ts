import type { Drift } from "../errors.js"
import { capped } from "./compare.js"
import { driftCount, type PassReport } from "./reconcile.js"

/** The drifted resources of a pass, ids capped: what a run's outcome line and its summary carry. */
export const driftOf = (pass: PassReport): ReadonlyArray<Drift> =>
  pass.resources.filter((r) => driftCount(r) > 0).map((r) => ({
    resource: r.resource, missing: capped(r.missing), stale: capped(r.stale), gone: capped(r.gone), repaired: r.repaired
  }))
