// A store the warehouse's statistics lack: the rows of a synced store copied under another id, in the caller's
// transaction, without an ANALYZE. PostgreSQL then estimates the copy as one row, as it does for a store added to a
// warehouse of others until the statistics are taken again: the plans that case gets can be checked on any harness.
import type pg from "pg"

/** An id no harness store has. */
export const UNSEEN_STORE = "store-the-statistics-lack"

/** Copies the rows `from` holds in `store.<table>` under `to` (every stored column; generated ones are computed again). */
export const copyStoreRows = async (client: pg.Client, table: string, from: string, to: string = UNSEEN_STORE): Promise<number> => {
  const columns = (await client.query<{ name: string }>(
    "SELECT quote_ident(attname) AS name FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = '' ORDER BY attnum",
    [`store.${table}`])).rows.map((r) => r.name)
  const copied = await client.query(`INSERT INTO store.${table} (${columns.join(", ")})
                                     SELECT ${columns.map((c) => (c === "store_id" ? "$2" : c)).join(", ")} FROM store.${table} WHERE store_id = $1`, [from, to])
  return copied.rowCount ?? 0
}
