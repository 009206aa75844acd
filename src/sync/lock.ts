import * as SqlClient from "@effect/sql/SqlClient"
import { Duration, Effect } from "effect"
import { sqlFile } from "../warehouse/sql-files.js"

/**
 * One sync per store at a time: a session-level advisory lock on a connection reserved for the
 * run's scope, released by the scope's finalizer (or by PostgreSQL if the process dies).
 * Returns false when another run holds it and `wait` is off.
 */
export const acquireRunLock = (storeId: string, wait: boolean) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const conn = yield* sql.reserve
    const tryLock = conn.execute(sqlFile("queries/advisory_lock"), [storeId], undefined).pipe(
      Effect.map((rows) => (rows[0] as { locked: boolean } | undefined)?.locked === true)
    )
    let locked = yield* tryLock
    if (!locked && wait) yield* Effect.logInfo(`another shopsync run holds the lock for store ${storeId}; waiting for it to finish`)
    while (!locked && wait) {
      yield* Effect.sleep(Duration.seconds(2))
      locked = yield* tryLock
    }
    if (locked) {
      yield* Effect.addFinalizer(() => conn.execute(sqlFile("queries/advisory_unlock"), [storeId], undefined).pipe(Effect.ignore))
    }
    return locked
  })
