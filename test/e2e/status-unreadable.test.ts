// A warehouse that cannot be read (here: a database shopsync never migrated) is said so, not hidden: the status
// page answers 503 with the database's error, and /metrics still answers, with shopsync_warehouse_up 0.
import { HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { metricsRoute } from "../../src/server/metrics.js"
import { statusPageRoute, type WebhookSummary } from "../../src/server/status-page.js"
import { freshDatabase } from "../support/database.js"
import { type ServedRoutes, serveRoutes } from "../support/routes.js"

const WEBHOOKS: WebhookSummary = { received: 0, applied: 0, failed: 0, pending: 0, bytes: 0, lastReceivedAt: null, rejected: [] }

describe("a warehouse the routes cannot read", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let served: ServedRoutes
  beforeAll(async () => {
    db = await freshDatabase()
    served = await serveRoutes(HttpRouter.concat(statusPageRoute(Effect.succeed(WEBHOOKS)), metricsRoute(Effect.succeed(WEBHOOKS))), db.url, "unread")
  })
  afterAll(async () => {
    await served?.close()
    await db?.drop()
  })

  it("the status page answers 503 with the reason", async () => {
    const response = await fetch(`${served.url}/`)
    expect(response.status).toBe(503)
    // The page reads several relations at once: whichever the database refuses first is the one named.
    expect(await response.text()).toMatch(/The warehouse cannot be read[\s\S]*42P01: relation &quot;(sync|analytics)\.\w+&quot; does not exist/)
  })

  it("/metrics answers 200 and says the warehouse was not read", async () => {
    const response = await fetch(`${served.url}/metrics`)
    expect(response.status).toBe(200)
    expect(await response.text()).toMatch(/^shopsync_warehouse_up\{store="unread"\} 0$/m)
  })
})
