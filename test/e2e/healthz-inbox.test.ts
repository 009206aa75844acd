// GET /healthz of serve answers 503 when the inbox worker is not running or the oldest pending delivery has waited
// past its bound, with a real warehouse (its SELECT 1) and the inbox's age stated by a stand-in.
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Layer, ManagedRuntime, Option, Redacted, Ref } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { healthz } from "../../src/server/healthz.js"
import { ServeState } from "../../src/server/serve-state.js"
import { pgLayer } from "../../src/warehouse/database.js"
import { Inbox } from "../../src/webhooks/inbox.js"
import { freshDatabase } from "../support/database.js"

describe("/healthz and the webhook inbox", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let runtime: ManagedRuntime.ManagedRuntime<import("@effect/sql/SqlClient").SqlClient, unknown>
  beforeAll(async () => {
    db = await freshDatabase()
    runtime = ManagedRuntime.make(pgLayer(Redacted.make(db.url), 1))
  })
  afterAll(async () => {
    await runtime?.dispose()
    await db?.drop()
  })

  /** /healthz's status and body with the worker `up` and the oldest pending delivery `age` seconds old. */
  const check = async (up: boolean, age: Option.Option<number>) => {
    const web = await runtime.runPromise(Effect.gen(function*() {
      const state = ServeState.of({ storeId: "h", syncEveryMs: 60_000, accepting: yield* Ref.make(true), lastSyncAt: yield* Ref.make(Date.now()), inboxWorkerUp: yield* Ref.make(up) })
      const inbox = { oldestPendingAge: () => Effect.succeed(age) } as unknown as Inbox
      return HttpServerResponse.toWeb(yield* healthz.pipe(Effect.provide(Layer.mergeAll(Layer.succeed(ServeState, state), Layer.succeed(Inbox, inbox)))))
    }))
    return { status: web.status, body: await web.json() as { reason?: string } }
  }

  it("503 while the inbox worker is not running", async () => {
    const r = await check(false, Option.none())
    expect(r.status).toBe(503)
    expect(r.body.reason).toContain("inbox worker is not running")
  })

  it("503 once the oldest pending delivery waited over 10 minutes; 200 below it or with nothing pending", async () => {
    const stuck = await check(true, Option.some(601))
    expect(stuck.status).toBe(503)
    expect(stuck.body.reason).toMatch(/oldest pending webhook delivery has waited 601 s/)
    expect((await check(true, Option.some(30))).status).toBe(200)
    expect((await check(true, Option.none())).status).toBe(200)
  })
})
