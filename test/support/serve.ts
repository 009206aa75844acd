import { createHmac } from "node:crypto"
import { type GenerateOptions, startStoreSimulator } from "../../src/simulator/store/index.js"
import { startCli } from "./cli.js"
import { freshDatabase } from "./database.js"
import { freePort } from "./ports.js"

/** Polls `check` until it returns something other than undefined/false, or fails after `timeoutMs`. */
export const eventually = async <T>(check: () => Promise<T | undefined | false>, timeoutMs = 10_000, what = "condition"): Promise<T> => {
  const started = Date.now()
  let last: unknown
  while (Date.now() - started < timeoutMs) {
    try {
      const value = await check()
      if (value !== undefined && value !== false) return value
    } catch (e) {
      last = e
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`${what} not reached within ${timeoutMs} ms${last ? `: ${String(last)}` : ""}`)
}

/**
 * `shopsync serve` as a real process on free ports: `base` is its webhook listener, `admin` its admin listener (the
 * status page, /metrics, /healthz with reasons); `ready` resolves once it listens and its first sync finished.
 */
export const startServe = async (env: Record<string, string>, port?: number) => {
  const p = port ?? await freePort()
  const adminPort = env["SHOPSYNC_ADMIN_PORT"] ?? String(await freePort())
  const run = startCli(["serve"], { ...env, SHOPSYNC_HTTP_PORT: String(p), SHOPSYNC_ADMIN_PORT: adminPort })
  const base = `http://127.0.0.1:${p}`
  const ready = eventually(async () => /background sync: run \d+ done/.test(run.output().stderr), 60_000, "serve's first sync")
  return { ...run, port: p, base, admin: `http://127.0.0.1:${adminPort}`, hookUrl: `${base}/webhooks/store`, ready, stderr: () => run.output().stderr }
}
export type Serve = Awaited<ReturnType<typeof startServe>>

/**
 * A generated store's simulator, a fresh database and `shopsync serve` syncing one into the other (its webhooks
 * signed with `secret`, hourly syncs, `env` on top), once its first sync is done; `close` ends all three.
 */
export const serveStore = async (data: GenerateOptions, storeId: string, secret: string, env: Record<string, string> = {}) => {
  const sim = await startStoreSimulator({ data })
  const db = await freshDatabase()
  const serve = await startServe({
    DATABASE_URL: db.url, STORE_API_URL: sim.url, STORE_CONSUMER_KEY: "ck_demo", STORE_CONSUMER_SECRET: "cs_demo",
    STORE_ID: storeId, STORE_WEBHOOK_SECRET: secret, SHOPSYNC_SYNC_EVERY: "1h", ...env
  })
  await serve.ready
  const close = async () => {
    serve.child.kill("SIGKILL")
    await sim.close()
    await db.drop()
  }
  return { sim, db, serve, close }
}

/** Signs `body` as the store does. */
export const signed = (body: string, secret: string) => createHmac("sha256", secret).update(body).digest("base64")

/** POSTs a delivery with the seed's header names. */
export const deliver = (url: string, body: string, headers: Record<string, string>) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body })
