import { createHmac } from "node:crypto"
import { startCli } from "./cli.js"
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

/** `shopsync serve` as a real process on a free port; `ready` resolves once it listens and its first sync finished. */
export const startServe = async (env: Record<string, string>, port?: number) => {
  const p = port ?? await freePort()
  const run = startCli(["serve"], { ...env, SHOPSYNC_HTTP_PORT: String(p) })
  const base = `http://127.0.0.1:${p}`
  const ready = eventually(async () => /background sync: run \d+ done/.test(run.output().stderr), 60_000, "serve's first sync")
  return { ...run, port: p, base, hookUrl: `${base}/webhooks/store`, ready, stderr: () => run.output().stderr }
}
export type Serve = Awaited<ReturnType<typeof startServe>>

/** Signs `body` as the store does. */
export const signed = (body: string, secret: string) => createHmac("sha256", secret).update(body).digest("base64")

/** POSTs a delivery with the seed's header names. */
export const deliver = (url: string, body: string, headers: Record<string, string>) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body })
