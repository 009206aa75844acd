// Shared helpers for the store simulator tests: authenticated fetches and small builders.
import { type StoreSimulator, type StoreSimulatorOptions, generate, startStoreSimulator } from "../../../src/simulator/store/index.ts"

export const AUTH = `Basic ${Buffer.from("ck_demo:cs_demo").toString("base64")}`

export interface Answer<T = unknown> {
  status: number
  headers: Headers
  body: T
  text: string
}

/** `path` is below the API root, e.g. "/orders?per_page=5". */
export const call = async <T = any>(sim: StoreSimulator, path: string, init: RequestInit & { json?: unknown } = {}): Promise<Answer<T>> => {
  const headers = new Headers(init.headers)
  if (!headers.has("authorization")) headers.set("authorization", AUTH)
  if (init.json !== undefined) headers.set("content-type", "application/json")
  const response = await fetch(`${sim.url}${path}`, { ...init, headers, ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }) })
  const text = await response.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {
    // not JSON (HTML or empty fault bodies)
  }
  return { status: response.status, headers: response.headers, body: body as T, text }
}

/** A simulator with the generated catalogue and customers but no orders, for hand-made scenarios. */
export const emptyShop = (options: StoreSimulatorOptions = {}): Promise<StoreSimulator> => {
  const data = generate({ seed: 5, orders: 0, products: 6, customers: 4 }, options.timezone)
  return startStoreSimulator({ ...options, data })
}

export const simpleProductId = (sim: StoreSimulator): number => sim.state.products.find((p) => p.type === "simple")!.id

export const at = (iso: string): number => Date.parse(iso)

export interface Received {
  method: string
  url: string
  headers: Record<string, string | string[] | undefined>
  /** The body exactly as received, byte for byte. */
  raw: Buffer
}

/**
 * A real HTTP receiver on 127.0.0.1 for webhook deliveries: records every request and answers with the status
 * `respond` gives (200 by default). `next(n)` resolves once n requests have arrived in total.
 */
export const startReceiver = async (respond: (r: Received) => number = () => 200) => {
  const { createServer } = await import("node:http")
  const received: Received[] = []
  const waiters: Array<{ n: number; resolve: () => void }> = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const r: Received = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, raw: Buffer.concat(chunks) }
      received.push(r)
      res.writeHead(respond(r), { "content-type": "text/plain" })
      res.end("ok")
      for (const w of waiters.filter((x) => received.length >= x.n)) w.resolve()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as { port: number }).port
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    next: (n: number) => new Promise<void>((resolve) => (received.length >= n ? resolve() : waiters.push({ n, resolve }))),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
