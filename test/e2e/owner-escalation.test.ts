import * as fs from "node:fs"
import pg from "pg"
import { afterAll, describe, expect, it } from "vitest"
import { runCli } from "../support/cli.js"
import { freePort } from "../support/ports.js"
import { reachableTempDir } from "../support/data-root.js"

const query = async <T = Record<string, unknown>>(url: string, text: string): Promise<T[]> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(text)).rows as T[]
  } finally {
    await client.end()
  }
}

/**
 * What the owner plants: functions in `public` (which it owns) named like the catalogue's, each recording who called
 * it and, when the caller is superuser, making the owner superuser. Harmless to the owner's own sessions.
 */
const PLANT = `
CREATE TABLE public.planted_calls (fn text, caller text, superuser boolean);
CREATE FUNCTION public.planted(fn text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE super boolean := (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = pg_catalog.current_user());
BEGIN
  INSERT INTO public.planted_calls VALUES (fn, pg_catalog.current_user(), super);
  IF super THEN EXECUTE 'ALTER ROLE shopsync SUPERUSER'; END IF;
END $$;
CREATE FUNCTION public.current_setting(text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('current_setting'); RETURN pg_catalog.current_setting($1); END $$;
CREATE FUNCTION public.set_config(text, text, boolean) RETURNS text LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('set_config'); RETURN pg_catalog.set_config($1, $2, $3); END $$;
CREATE FUNCTION public.format(text, text, text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('format'); RETURN pg_catalog.format($1, $2, $3); END $$;
ALTER DATABASE shopsync SET search_path = public, pg_catalog;
`

describe("the owner role cannot make itself superuser", () => {
  const dataRoot = reachableTempDir("shopsync-owner-")
  afterAll(async () => {
    await runCli(["warehouse", "stop"], { SHOPSYNC_DATA_DIR: dataRoot })
    fs.rmSync(dataRoot, { recursive: true, force: true })
  })

  it("functions it plants in public and a search_path it sets on the database are not run by the superuser's sessions", async () => {
    const env = { SHOPSYNC_DATA_DIR: dataRoot, SHOPSYNC_PG_PORT: String(await freePort()) }
    const started = await runCli(["warehouse", "start"], env)
    expect(started.code, started.stderr).toBe(0)
    const ownerUrl = (await runCli(["warehouse", "url"], env)).stdout.trim()
    await query(ownerUrl, PLANT)

    // The superuser's sessions: the setup at the next start, and a login granted the read-only role.
    expect((await runCli(["warehouse", "stop"], env)).code).toBe(0)
    const restarted = await runCli(["warehouse", "start"], env)
    expect(restarted.code, restarted.stderr).toBe(0)
    const granted = await runCli(["warehouse", "grant", "analyst"], env)
    expect(granted.code, granted.stderr).toBe(0)

    expect(await query(ownerUrl, "SELECT fn, caller, superuser FROM public.planted_calls WHERE superuser OR caller <> 'shopsync'"))
      .toEqual([])
    expect(await query(ownerUrl, "SELECT rolsuper FROM pg_roles WHERE rolname = current_user")).toEqual([{ rolsuper: false }])
    // The plant works: the owner's own sessions resolve to it.
    await query(ownerUrl, "SELECT current_setting('search_path')")
    expect(await query(ownerUrl, "SELECT DISTINCT caller FROM public.planted_calls WHERE fn = 'current_setting'"))
      .toEqual([{ caller: "shopsync" }])
  }, 120_000)

  it("a role it sets on the database does not become the superuser's: setup and grants still run as superuser", async () => {
    const env = { SHOPSYNC_DATA_DIR: dataRoot, SHOPSYNC_PG_PORT: String(await freePort()) }
    expect((await runCli(["warehouse", "start"], env)).code).toBe(0)
    const ownerUrl = (await runCli(["warehouse", "url"], env)).stdout.trim()
    await query(ownerUrl, "ALTER DATABASE shopsync SET role = shopsync")
    const granted = await runCli(["warehouse", "grant", "bi_tool"], env)
    expect(granted.code, granted.stderr).toBe(0)
    expect((await runCli(["warehouse", "stop"], env)).code).toBe(0)
    const restarted = await runCli(["warehouse", "start"], env)
    expect(restarted.code, restarted.stderr).toBe(0)
    // The server the first test left running had another port: the URL after the restart.
    const restartedUrl = (await runCli(["warehouse", "url"], env)).stdout.trim()
    expect(await query(restartedUrl, "SELECT rolsuper FROM pg_roles WHERE rolname = current_user")).toEqual([{ rolsuper: false }])
  }, 120_000)
})
