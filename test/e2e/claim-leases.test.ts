// sync.claim_leases (one statement a run start) decides which leases are free in SQL; lease.ts `isFree` decides the
// same in TypeScript for the look that comes before it. Generated leases (no holder, a holder running or ended, a
// heartbeat around the TTL or none, a holder watched standing still or not) must get the same answer from both, and a
// claim must fence out and retire exactly the holders it took the leases from.
import fc from "fast-check"
import { Effect, Option } from "effect"
import * as SqlClient from "@effect/sql/SqlClient"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { isFree, LEASE_TTL_SECONDS, makeLeases, type StillHolder } from "../../src/warehouse/lease.js"
import { sqlRows } from "../support/database.js"
import { type MigratedDatabase, migratedDatabase } from "../support/migrated.js"

interface Holder {
  readonly status: "running" | "succeeded" | "failed"
  /** Seconds since its heartbeat; null: none. */
  readonly age: number | null
  /** Watched standing still: at its beat (0), since it moved (-1), or not watched (undefined). */
  readonly still: 0 | -1 | undefined
}

const holder = fc.record({
  status: fc.constantFrom("running" as const, "succeeded" as const, "failed" as const),
  age: fc.option(fc.constantFrom(0, 1, LEASE_TTL_SECONDS - 1, LEASE_TTL_SECONDS + 1, 3600), { nil: null }),
  still: fc.constantFrom(0 as const, -1 as const, undefined)
})

describe("sync.claim_leases against isFree", () => {
  let db: MigratedDatabase
  beforeAll(async () => {
    db = await migratedDatabase(2)
  }, 60_000)
  afterAll(() => db?.close())

  let n = 0
  /** A store whose two leases (sync, resources) are held as `leases` say (undefined: no holder). */
  const setUp = async (leases: ReadonlyArray<Holder | undefined>) => {
    const store = `claim-${++n}`
    const runs: Array<number | null> = []
    for (const [i, h] of leases.entries()) {
      if (h === undefined) {
        runs.push(null)
        continue
      }
      const [row] = await sqlRows<{ id: string }>(db.url, `
        INSERT INTO sync.runs (store_id, command, streams, status, heartbeat_at)
        VALUES ($1, 'sync', '{}', $2, CASE WHEN $3::float8 IS NULL THEN NULL ELSE now() - make_interval(secs => $3::float8) END) RETURNING id`,
      [store, h.status, h.age])
      runs.push(Number(row!.id))
      await sqlRows(db.url, "INSERT INTO sync.run_leases (store_id, lock, holder) VALUES ($1, $2, $3)", [store, ["sync", "resources"][i], Number(row!.id)])
    }
    return { store, runs }
  }

  it("claims what isFree calls free, the first lock required, and retires the holders it fenced out", async () => {
    await fc.assert(fc.asyncProperty(fc.option(holder, { nil: undefined }), fc.option(holder, { nil: undefined }), async (sales, resources) => {
      const { store, runs } = await setUp([sales, resources])
      const check = Effect.gen(function*() {
        const leases = makeLeases(yield* SqlClient.SqlClient, store)
        const views = yield* Effect.all([leases.read("sync"), leases.read("resources")])
        // The watched holder is the sales lease's, as lock.ts watches it.
        const watched: Option.Option<StillHolder> = sales?.still !== undefined && views[0].holder !== null && views[0].beat !== null
          ? Option.some({ run: views[0].holder, beat: views[0].beat + BigInt(sales.still) })
          : Option.none()
        const free = views.map((v) => isFree(v, watched))
        const expected = !free[0] ? [] : free[1] ? ["sync", "resources"] : ["sync"]
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ claimed: ReadonlyArray<string> }>`
          SELECT sync.claim_leases(${store}, '{sync,resources}'::text[], ${Option.getOrNull(Option.map(watched, (h) => h.run))}::bigint,
                                   ${Option.getOrNull(Option.map(watched, (h) => h.beat.toString()))}::bigint, ${LEASE_TTL_SECONDS}) AS claimed`
        const claimed = row!.claimed
        return { expected, claimed, watched }
      })
      const { expected, claimed } = await db.runtime.runPromise(check)
      expect([...claimed]).toEqual(expected)
      const after = await sqlRows<{ lock: string; holder: string | null }>(db.url, "SELECT lock, holder::text FROM sync.run_leases WHERE store_id = $1 ORDER BY lock DESC", [store])
      const holders = new Map(after.map((l) => [l.lock, l.holder === null ? null : Number(l.holder)]))
      for (const [i, lock] of ["sync", "resources"].entries()) {
        // A lease claimed is empty (its row made if need be); any other keeps its holder.
        if (claimed.includes(lock)) expect(holders.get(lock)).toBeNull()
        else if (runs[i] !== null) expect(holders.get(lock)).toBe(runs[i])
      }
      // A holder fenced out of every lease it held, and still 'running', is recorded as interrupted.
      for (const [i, run] of runs.entries()) {
        if (run === null) continue
        const [row] = await sqlRows<{ status: string; outcome: string | null }>(db.url, "SELECT status, outcome FROM sync.runs WHERE id = $1", [run])
        const was = [sales, resources][i]!
        const retired = claimed.includes(["sync", "resources"][i]!) && was.status === "running"
        expect(row).toEqual(retired ? { status: "failed", outcome: "interrupted" } : { status: was.status, outcome: null })
      }
    }), { numRuns: 100 })
  })
})
