/**
 * Source limit: every page the pipeline must read (orders any + trash, refunds, customers, products any +
 * trash, and the variations of each variable product), fetched `concurrency` at a time by page number and
 * parsed, then discarded. Prints {"documents", "requests", "seconds"} as JSON.
 *
 *   node source.js <STORE_API_URL> <concurrency> [per_page]
 */
const [apiUrl, concurrencyArg, perPageArg] = process.argv.slice(2)
if (!apiUrl || !concurrencyArg) throw new Error("usage: source.js <STORE_API_URL> <concurrency> [per_page]")
const concurrency = Number(concurrencyArg)
const perPage = Number(perPageArg ?? 100)
const auth = `Basic ${Buffer.from("ck_demo:cs_demo").toString("base64")}`

const LISTINGS: ReadonlyArray<{ path: string; params: Record<string, string> }> = [
  { path: "/orders", params: { status: "any" } },
  { path: "/orders", params: { status: "trash" } },
  { path: "/refunds", params: {} },
  { path: "/customers", params: {} },
  { path: "/products", params: { status: "any" } },
  { path: "/products", params: { status: "trash" } }
]

let documents = 0
let requests = 0
const queue: Array<() => Promise<void>> = []

const get = async (path: string, params: Record<string, string>, page: number) => {
  const url = new URL(apiUrl + path)
  for (const [k, v] of Object.entries({ ...params, orderby: "id", order: "asc", per_page: String(perPage), page: String(page) })) url.searchParams.set(k, v)
  requests++
  const response = await fetch(url, { headers: { authorization: auth, accept: "application/json" } })
  if (!response.ok) throw new Error(`${response.status} on ${url}`)
  const docs = JSON.parse(await response.text()) as Array<{ id: number; type?: string }>
  documents += docs.length
  return { docs, pages: Number(response.headers.get("x-wp-totalpages") ?? 1) }
}

/** A listing's first page says how many more there are; products pages also name the variable products. */
const listing = (path: string, params: Record<string, string>) => async () => {
  const onDocs = (docs: ReadonlyArray<{ id: number; type?: string }>) => {
    if (path !== "/products") return
    for (const d of docs) if (d.type === "variable") queue.push(listing(`/products/${d.id}/variations`, {}))
  }
  const first = await get(path, params, 1)
  onDocs(first.docs)
  for (let page = 2; page <= first.pages; page++) queue.push(async () => onDocs((await get(path, params, page)).docs))
}

const started = performance.now()
for (const l of LISTINGS) queue.push(listing(l.path, l.params))
let running = 0
await new Promise<void>((resolve, reject) => {
  const pump = () => {
    if (queue.length === 0 && running === 0) return resolve()
    while (running < concurrency && queue.length > 0) {
      running++
      queue.shift()!().then(() => {
        running--
        pump()
      }, reject)
    }
  }
  pump()
})
process.stdout.write(`${JSON.stringify({ documents, requests, seconds: (performance.now() - started) / 1000 })}\n`)
