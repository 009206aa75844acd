import { randomBytes } from "node:crypto"
import pg from "pg"
import { inject } from "vitest"

/** A new, empty database on the test server; dropped by the returned cleanup. */
export const freshDatabase = async (): Promise<{ url: string; drop: () => Promise<void> }> => {
  const admin = inject("pgAdminUrl")
  if (!admin) throw new Error("no test PostgreSQL in this vitest project: a test file that needs one belongs to e2e (vitest.config.ts)")
  const name = `t_${randomBytes(6).toString("hex")}`
  const client = new pg.Client({ connectionString: admin })
  await client.connect()
  await client.query(`CREATE DATABASE ${name}`)
  await client.end()
  const url = admin.replace(/\/postgres$/, `/${name}`)
  return {
    url,
    drop: async () => {
      const c = new pg.Client({ connectionString: admin })
      await c.connect()
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await c.end()
    }
  }
}

/** Runs one query on a database with a throwaway connection (assertions read the warehouse this way). */
export const sqlRows = async <T = Record<string, unknown>>(url: string, text: string, params: unknown[] = []): Promise<T[]> => {
  const client = new pg.Client({ connectionString: url })
  client.setTypeParser(1082, (v) => v)
  await client.connect()
  try {
    return (await client.query(text, params)).rows as T[]
  } finally {
    await client.end()
  }
}
