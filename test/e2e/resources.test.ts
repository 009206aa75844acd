import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock } from "../../src/simulator/store/index.js"
import { CATALOGUE, STREAMS } from "../../src/sync/catalogue.js"

/**
 * The resource tables of one shape (`variations` writes store.product_variations, a sales-shaped table;
 * `store_profile` one row per store, test/e2e/store-profile.test.ts).
 */
const RESOURCE_STREAMS = STREAMS.filter((name) => !CATALOGUE[name].sales && name !== "variations" && name !== "store_profile")
import { call } from "../simulator/store/support.js"
import { fetchAll } from "../support/api.js"
import { type Harness, makeHarness } from "../support/harness.js"
import { ms } from "../support/scenarios.js"

type Doc = Record<string, any>
/** "scope key" → document: a table's live rows, or the store's view of them. */
type View = Map<string, Doc>

const HOUR = 3_600_000

/**
 * The store's side of every resource table, read here over plain HTTP with no code of the pipeline: each
 * table's documents under the same (scope, key) the sync files them by.
 */
const storeViews = async (h: Harness): Promise<Record<string, View>> => {
  const url = h.sim.url
  const get = async (path: string): Promise<any> => {
    const answer = await call(h.sim, path)
    if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status}`)
    return answer.body
  }
  const view = async (scopes: ReadonlyArray<string>, read: (scope: string) => Promise<Doc[]>, key: (d: Doc) => string = (d) => String(d.id)) => {
    const out: View = new Map()
    for (const scope of scopes) for (const d of await read(scope)) out.set(`${scope} ${key(d)}`, d)
    return out
  }
  const top = (read: () => Promise<Doc[]>, key?: (d: Doc) => string) => view([""], read, key)
  const orders = [...(await fetchAll(url, "/orders", { status: "any" })), ...(await fetchAll(url, "/orders", { status: "trash" }))].map((o) => String(o.id))
  const customers = (await fetchAll(url, "/customers", { role: "all" })).map((c) => String(c.id))
  const attributes = (await get("/products/attributes")).map((a: Doc) => String(a.id))
  const zones = (await get("/shipping/zones")).map((z: Doc) => String(z.id))
  const groups = (await get("/settings")).map((g: Doc) => String(g.id))
  const reference: Record<string, string> = { index: "/data", continents: "/data/continents", countries: "/data/countries", currencies: "/data/currencies" }
  return {
    tax_rates: await top(() => fetchAll(url, "/taxes")),
    tax_classes: await top(() => get("/taxes/classes"), (d) => d.slug),
    product_reviews: await top(async () => (await Promise.all(["all", "spam", "trash"].map((status) => fetchAll(url, "/products/reviews", { status })))).flat()),
    product_attributes: await top(() => get("/products/attributes")),
    attribute_terms: await view(attributes, (a) => fetchAll(url, `/products/attributes/${a}/terms`)),
    product_categories: await top(() => fetchAll(url, "/products/categories")),
    shipping_classes: await top(() => fetchAll(url, "/products/shipping_classes")),
    shipping_zones: await top(() => get("/shipping/zones")),
    shipping_zone_methods: await view(zones, (z) => get(`/shipping/zones/${z}/methods`), (d) => String(d.instance_id)),
    order_notes: await view(orders, (o) => get(`/orders/${o}/notes`)),
    customer_downloads: await view(customers, (c) => get(`/customers/${c}/downloads`), (d) => `${d.download_id}:${d.order_id}`),
    settings: await view(groups, (g) => get(`/settings/${g}`)),
    reference_data: await view(
      ["index", "continents", "countries", "currencies", "current"],
      async (s) => (s === "current" ? [await get("/data/currencies/current")] : get(reference[s]!)),
      (d) => d.code ?? d.slug
    ),
    system_status_tools: await top(() => get("/system_status/tools")),
    webhooks: await top(() => fetchAll(url, "/webhooks", { status: "all" })),
    report_top_sellers: await view(["week", "month", "last_month", "year"], (p) => get(`/reports/top_sellers?period=${p}`), (d) => String(d.product_id)),
    report_totals: await view(["coupons", "customers", "orders", "products", "reviews"], (r) => get(`/reports/${r}/totals`), (d) => d.slug)
  }
}

const warehouseView = async (h: Harness, table: string, which: "live" | "deleted" = "live"): Promise<View> => {
  const rows = await h.rows<{ scope: string; key: string; doc: Doc }>(
    `SELECT scope, key, doc FROM store.${table} WHERE store_id = 'test' AND (deleted_at IS NULL) = $1`,
    [which === "live"]
  )
  return new Map(rows.map((r) => [`${r.scope} ${r.key}`, r.doc]))
}

/** Every resource table holds exactly the store's documents: nothing missing, nothing extra, nothing stale. */
const expectWarehouseMatchesStore = async (h: Harness, except: ReadonlyArray<string> = []) => {
  const store = await storeViews(h)
  for (const table of RESOURCE_STREAMS) {
    if (except.includes(table)) continue
    const ours = await warehouseView(h, table)
    expect({ table, keys: [...ours.keys()].sort() }).toEqual({ table, keys: [...store[table]!.keys()].sort() })
    for (const [key, doc] of store[table]!) expect({ table, key, doc: ours.get(key) }).toEqual({ table, key, doc })
  }
  return store
}

const send = async (h: Harness, method: string, path: string, json?: unknown) => {
  const answer = await call(h.sim, path, { method, ...(json === undefined ? {} : { json }) })
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`)
  return answer.body as Doc
}

describe("every readable resource of the store, synced", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  let guideId: number
  const sync = () => h.sync({ streams: STREAMS, childrenFullPassHours: 24 })

  beforeAll(async () => {
    h = await makeHarness({ clock, timezone: "America/New_York", data: { seed: 41, orders: 120, customers: 40, products: 24, start: "2026-05-01", days: 60 } })
    // What a generated store lacks: webhooks (paused: nothing is delivered) and a download permission.
    await send(h, "POST", "/webhooks", { name: "orders", topic: "order.created", delivery_url: "http://127.0.0.1:9/orders", status: "paused" })
    await send(h, "POST", "/webhooks", { name: "customers", topic: "customer.updated", delivery_url: "http://127.0.0.1:9/customers", status: "paused" })
    const guide = await send(h, "POST", "/products", {
      name: "Field guide", type: "simple", regular_price: "9.00", downloadable: true, virtual: true,
      downloads: [{ name: "Field guide (PDF)", file: "https://example.test/guide.pdf" }]
    })
    guideId = guide.id
    const buyer = h.sim.state.customers[0]!.id
    await send(h, "POST", "/orders", { customer_id: buyer, status: "completed", set_paid: true, line_items: [{ product_id: guide.id, quantity: 1 }] })
    clock.advance(60_000)
  })
  afterAll(() => h.close())

  it("a full sync lands every resource as the store serves it; a sync with nothing changed writes nothing", async () => {
    const summary = await sync()
    expect(summary?.streams.filter((s) => s.error !== undefined)).toEqual([])
    const store = await expectWarehouseMatchesStore(h)
    // Every resource is populated, and the counts agree with the simulator's own records.
    for (const table of RESOURCE_STREAMS) expect({ table, rows: store[table]!.size > 0 }).toEqual({ table, rows: true })
    const state = h.sim.state
    expect(store.order_notes!.size).toBe(state.orders.reduce((n, o) => n + state.notes.of(o.id).length, 0))
    expect(store.customer_downloads!.size).toBeGreaterThan(0)
    expect(store.webhooks!.size).toBe(2)
    const typed = await h.rows<{ rates: string; terms: string }>(
      `SELECT (SELECT count(*) FROM store.tax_rates WHERE rate IS NOT NULL) AS rates,
              (SELECT count(DISTINCT attribute_id) FROM store.attribute_terms) AS terms`
    )
    expect(Number(typed[0]!.rates)).toBe(store.tax_rates!.size)
    expect(Number(typed[0]!.terms)).toBe(store.product_attributes!.size)

    clock.advance(60_000)
    const again = await sync()
    expect(again?.streams.filter((s) => (RESOURCE_STREAMS as ReadonlyArray<string>).includes(s.stream) && (s.rows > 0 || s.deleted > 0))).toEqual([])
  })

  it("changes in every resource: parents' changes are followed at once, the rest by the full pass; then everything matches", async () => {
    const state = h.sim.state
    const [attrA, attrB] = [...state.taxonomy.attributes.values()]
    const termOfA = state.taxonomy.inGroup(`attribute:${attrA!.id}`)[0]!
    const termOfB = state.taxonomy.inGroup(`attribute:${attrB!.id}`)[0]!
    const [quietOrder, touchedOrder] = state.orders.filter((o) => o.status === "completed")
    const rate = [...state.taxes.rates.values()][0]!
    const review = state.reviews.all[0]!
    const category = state.taxonomy.inGroup("product_cat")[0]!
    const zone = [...state.zones.zones.values()].find((z) => z.id !== 0)!
    const webhook = [...state.webhooks.byId.values()][0]!

    await send(h, "PUT", `/taxes/${rate.id}`, { rate: "9.2500" })
    await send(h, "POST", "/taxes/classes", { name: "Luxury" })
    await send(h, "PUT", `/products/reviews/${review.id}`, { status: "spam" })
    await send(h, "POST", "/products/reviews", { product_id: state.products[0]!.id, review: "Sturdy.", reviewer: "Ana", reviewer_email: "ana@example.test", rating: 5 })
    await send(h, "PUT", `/products/attributes/${attrA!.id}`, { name: "Sizing" })
    await send(h, "PUT", `/products/attributes/${attrA!.id}/terms/${termOfA.id}`, { description: "changed with its attribute" })
    await send(h, "PUT", `/products/attributes/${attrB!.id}/terms/${termOfB.id}`, { description: "changed alone" })
    await send(h, "PUT", `/products/categories/${category.id}`, { name: "Renamed category" })
    await send(h, "POST", "/products/shipping_classes", { name: "Oversize" })
    await send(h, "PUT", `/shipping/zones/${zone.id}`, { name: "Zone renamed" })
    await send(h, "POST", `/shipping/zones/${zone.id}/methods`, { method_id: "local_pickup" })
    await send(h, "POST", `/orders/${quietOrder!.id}/notes`, { note: "a note on an order that does not change" })
    await send(h, "POST", `/orders/${touchedOrder!.id}/notes`, { note: "a note on an order that changes too" })
    await send(h, "PUT", `/orders/${touchedOrder!.id}`, { customer_note: "changed" })
    await send(h, "PUT", "/settings/products/woocommerce_hold_stock_minutes", { value: "45" })
    await send(h, "PUT", `/webhooks/${webhook.id}`, { name: "orders (renamed)" })
    // A second buyer of the downloadable guide: a new download permission, through a new order.
    const secondBuyer = state.customers[1]!.id
    await send(h, "POST", "/orders", { customer_id: secondBuyer, status: "completed", set_paid: true, line_items: [{ product_id: guideId, quantity: 1 }] })
    clock.advance(60_000)

    await sync()
    // What the API signals is in at once: every list read whole, and the children of changed parents.
    await expectWarehouseMatchesStore(h, ["attribute_terms", "order_notes"])
    const terms = await warehouseView(h, "attribute_terms")
    expect(terms.get(`${attrA!.id} ${termOfA.id}`)?.description).toBe("changed with its attribute")
    expect(terms.get(`${attrB!.id} ${termOfB.id}`)?.description).not.toBe("changed alone")
    expect([...(await warehouseView(h, "customer_downloads")).keys()].some((k) => k.startsWith(`${secondBuyer} `))).toBe(true)
    const notes = [...(await warehouseView(h, "order_notes")).values()].map((n) => n.note)
    expect(notes).toContain("a note on an order that changes too")
    expect(notes).not.toContain("a note on an order that does not change")

    // A day later the full pass reads every parent's children again.
    clock.advance(25 * HOUR)
    await sync()
    await expectWarehouseMatchesStore(h)
  })

  it("deletions in every resource are reflected: gone from the lists, kept with deleted_at", async () => {
    const state = h.sim.state
    const deleted = new Map<string, string>()
    const rate = [...state.taxes.rates.values()].find((r) => r.taxClass === "")!
    await send(h, "DELETE", `/taxes/${rate.id}?force=true`)
    deleted.set("tax_rates", ` ${rate.id}`)
    await send(h, "DELETE", "/taxes/classes/luxury?force=true")
    deleted.set("tax_classes", " luxury")
    const review = state.reviews.all.find((r) => r.status === "approved")!
    await send(h, "DELETE", `/products/reviews/${review.id}?force=true`)
    deleted.set("product_reviews", ` ${review.id}`)
    const attribute = [...state.taxonomy.attributes.values()][1]!
    const termOfAttribute = state.taxonomy.inGroup(`attribute:${attribute.id}`)[0]!
    await send(h, "DELETE", `/products/attributes/${attribute.id}?force=true`)
    deleted.set("product_attributes", ` ${attribute.id}`)
    deleted.set("attribute_terms", `${attribute.id} ${termOfAttribute.id}`)
    const category = state.taxonomy.inGroup("product_cat").find((c) => c.id !== 15)!
    await send(h, "DELETE", `/products/categories/${category.id}?force=true`)
    deleted.set("product_categories", ` ${category.id}`)
    const shippingClass = state.taxonomy.inGroup("product_shipping_class")[0]!
    await send(h, "DELETE", `/products/shipping_classes/${shippingClass.id}?force=true`)
    deleted.set("shipping_classes", ` ${shippingClass.id}`)
    const zone = [...state.zones.zones.values()].find((z) => z.id !== 0)!
    const method = state.zones.methodsOf(zone.id)[0]!
    await send(h, "DELETE", `/shipping/zones/${zone.id}?force=true`)
    deleted.set("shipping_zones", ` ${zone.id}`)
    deleted.set("shipping_zone_methods", `${zone.id} ${method.instanceId}`)
    // A note deleted on an order that stays, and an order deleted for good with its notes.
    const [keeps, goes] = state.orders.filter((o) => state.notes.of(o.id).length > 0 && o.status !== "trash")
    const note = state.notes.of(keeps!.id)[0]!
    await send(h, "DELETE", `/orders/${keeps!.id}/notes/${note.id}?force=true`)
    deleted.set("order_notes", `${keeps!.id} ${note.id}`)
    const goneNote = state.notes.of(goes!.id)[0]!
    await send(h, "DELETE", `/orders/${goes!.id}?force=true`)
    const downloads = await warehouseView(h, "customer_downloads")
    const [downloadKey] = [...downloads.keys()]
    const buyer = downloadKey!.split(" ")[0]!
    await send(h, "DELETE", `/customers/${buyer}?force=true&reassign=0`)
    deleted.set("customer_downloads", downloadKey!)
    const webhook = [...state.webhooks.byId.values()][1]!
    await send(h, "DELETE", `/webhooks/${webhook.id}?force=true`)
    deleted.set("webhooks", ` ${webhook.id}`)
    clock.advance(25 * HOUR)

    await sync()
    await expectWarehouseMatchesStore(h)
    for (const [table, key] of deleted) {
      expect({ table, key, kept: (await warehouseView(h, table, "deleted")).has(key) }).toEqual({ table, key, kept: true })
    }
    expect((await warehouseView(h, "order_notes", "deleted")).has(`${goes!.id} ${goneNote.id}`)).toBe(true)
  })
})

describe("a paged list that shifts while it is read", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  let hook: ((info: { path: string; query: URLSearchParams }) => void) | undefined
  beforeAll(async () => {
    h = await makeHarness(
      { clock, timezone: "UTC", data: { seed: 43, orders: 10, products: 12 }, onRequest: (info) => hook?.(info) },
      { perPage: 3 }
    )
    for (const name of ["Extra A", "Extra B", "Extra C", "Extra D"]) await send(h, "POST", "/products/categories", { name })
  })
  afterAll(() => h.close())

  it("a row that slid past the reader is confirmed by its own GET, not marked deleted; the next run converges", async () => {
    const streams = ["product_categories"] as const
    await h.sync({ streams })
    const before = (await storeViews(h)).product_categories!
    expect(before.size).toBeGreaterThan(6)

    // While page 2 is asked for: a row of page 1 goes and a new one comes last. Every page still reports the
    // same total and as many rows arrive, but the first row of the old page 2 is now on page 1, unread.
    const ordered = [...h.sim.state.taxonomy.inGroup("product_cat")].sort((a, b) => a.id - b.id)
    const gone = ordered[1]!
    const slid = ordered[3]!
    let fired = false
    hook = ({ path, query }) => {
      if (fired || path !== "/products/categories" || query.get("page") !== "2") return
      fired = true
      h.sim.state.taxonomy.deleteTerm(gone)
      h.sim.state.taxonomy.createTerm("product_cat", { name: "Created while paging" })
    }
    clock.advance(60_000)
    await h.sync({ streams })
    hook = undefined
    expect(fired).toBe(true)
    const deletedNow = await warehouseView(h, "product_categories", "deleted")
    expect(deletedNow.has(` ${slid.id}`)).toBe(false)
    expect((await warehouseView(h, "product_categories")).has(` ${slid.id}`)).toBe(true)

    clock.advance(60_000)
    await h.sync({ streams })
    const ours = await warehouseView(h, "product_categories")
    expect([...ours.keys()].sort()).toEqual([...(await storeViews(h)).product_categories!.keys()].sort())
    expect((await warehouseView(h, "product_categories", "deleted")).has(` ${gone.id}`)).toBe(true)
  })

  it("a list that fails part-way keeps the pages it read (merged page by page) and marks nothing deleted", async () => {
    const streams = ["product_categories"] as const
    const [first] = [...h.sim.state.taxonomy.inGroup("product_cat")].sort((a, b) => a.id - b.id)
    await send(h, "PUT", `/products/categories/${first!.id}`, { name: "Renamed before a failure" })
    const deleted = [...(await warehouseView(h, "product_categories", "deleted")).keys()]
    // Page 1 answers; every later request fails.
    h.sim.setFaults([{ kind: "503", pathPrefix: "/products/categories", afterRequests: 1 }])
    clock.advance(60_000)
    await expect(h.sync({ streams })).rejects.toThrow()
    h.sim.setFaults([])
    expect((await warehouseView(h, "product_categories")).get(` ${first!.id}`)?.name).toBe("Renamed before a failure")
    expect([...(await warehouseView(h, "product_categories", "deleted")).keys()]).toEqual(deleted)

    clock.advance(60_000)
    await h.sync({ streams })
    const ours = await warehouseView(h, "product_categories")
    expect([...ours.keys()].sort()).toEqual([...(await storeViews(h)).product_categories!.keys()].sort())
  })
})

describe("a parent the warehouse still has, gone from the store", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({ clock, timezone: "UTC", data: { seed: 44, orders: 10, customers: 6, products: 8 } })
  })
  afterAll(() => h.close())

  it("its child list answers 404: the children are marked deleted and the stream carries on", async () => {
    const guide = await send(h, "POST", "/products", {
      name: "Manual", type: "simple", regular_price: "4.00", downloadable: true, virtual: true,
      downloads: [{ name: "Manual (PDF)", file: "https://example.test/manual.pdf" }]
    })
    const buyer = h.sim.state.customers[0]!.id
    await send(h, "POST", "/orders", { customer_id: buyer, status: "completed", set_paid: true, line_items: [{ product_id: guide.id, quantity: 1 }] })
    clock.advance(60_000)
    await h.sync({ streams: ["orders", "customers", "customer_downloads"] })
    const before = await warehouseView(h, "customer_downloads")
    expect([...before.keys()].filter((k) => k.startsWith(`${buyer} `)).length).toBe(1)

    // Customers are scanned fully once a day here: the warehouse keeps the deleted customer live meanwhile.
    await send(h, "DELETE", `/customers/${buyer}?force=true&reassign=0`)
    clock.advance(60_000)
    const run = await h.sync({ streams: ["customers", "customer_downloads"], customersFullScanHours: 24, childrenFullPassHours: 0 })
    expect(run?.streams.filter((s) => s.error !== undefined)).toEqual([])
    const live = await h.rows(`SELECT 1 FROM store.customers WHERE store_id = 'test' AND id = $1 AND deleted_at IS NULL`, [buyer])
    expect(live.length).toBe(1)
    const after = await warehouseView(h, "customer_downloads", "deleted")
    expect([...after.keys()].filter((k) => k.startsWith(`${buyer} `)).length).toBe(1)
  })
})

describe("variations changed behind the API's back", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({ clock, timezone: "UTC", data: { seed: 45, orders: 10, products: 20 } })
  })
  afterAll(() => h.close())

  it("are not seen until the periodic full pass re-reads every variable product's variations", async () => {
    const sync = () => h.sync({ streams: ["products", "variations"], childrenFullPassHours: 24 })
    await sync()
    // A write that does not go through the store's API (a plugin, a database edit): the product's
    // date_modified stays, so nothing tells the products cursor.
    const variation = h.sim.state.variations[0]!
    variation.sku = "EDITED-BEHIND"
    const sku = async () =>
      (await h.rows<{ sku: string }>(`SELECT sku FROM store.product_variations WHERE store_id = 'test' AND id = $1`, [variation.id]))[0]?.sku
    expect(await sku()).not.toBe("EDITED-BEHIND")

    clock.advance(60_000)
    await sync()
    expect(await sku()).not.toBe("EDITED-BEHIND")

    clock.advance(25 * HOUR)
    await sync()
    expect(await sku()).toBe("EDITED-BEHIND")
  })
})
