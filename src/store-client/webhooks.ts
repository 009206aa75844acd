import { Effect, Redacted, Schema } from "effect"
import { StoreClient } from "./client.js"
import type { StoreError } from "./errors.js"

/** A store webhook as the API shows it (the secret is write-only). */
export const StoreWebhook = Schema.Struct({
  id: Schema.Int,
  name: Schema.optional(Schema.String),
  status: Schema.String,
  topic: Schema.String,
  delivery_url: Schema.String
})
export type StoreWebhook = typeof StoreWebhook.Type

/** The topics shopsync serve applies: created, updated and deleted orders, customers and products. */
export const SUBSCRIBED_TOPICS = ["order", "customer", "product"].flatMap((r) => ["created", "updated", "deleted"].map((e) => `${r}.${e}`))

/** Every webhook of the store, page by page. */
export const listWebhooks: Effect.Effect<ReadonlyArray<StoreWebhook>, StoreError, StoreClient> = Effect.gen(function*() {
  const store = yield* StoreClient
  const all: Array<StoreWebhook> = []
  for (let page = 1; ; page++) {
    const p = yield* store.list("/webhooks", { per_page: 100, page, orderby: "id", order: "asc" }, StoreWebhook)
    all.push(...p.items)
    if (p.items.length < 100 || page >= p.totalPages) return all
  }
})

/** What `ensure` did per topic. */
export interface Ensured {
  readonly topic: string
  readonly id: number
  readonly action: "created" | "reactivated" | "unchanged"
  readonly removedDuplicates: ReadonlyArray<number>
}

const create = (topic: string, url: string, secret: Redacted.Redacted<string>) =>
  Effect.flatMap(StoreClient, (store) =>
    store.send({ method: "POST", body: { name: `shopsync ${topic}`, topic, delivery_url: url, secret: Redacted.value(secret), status: "active" } }, "/webhooks", {}, StoreWebhook))

const reactivate = (id: number, secret: Redacted.Redacted<string>) =>
  Effect.flatMap(StoreClient, (store) =>
    store.send({ method: "PUT", body: { status: "active", secret: Redacted.value(secret) } }, `/webhooks/${id}`, {}, StoreWebhook))

const remove = (id: number) =>
  Effect.flatMap(StoreClient, (store) => store.send({ method: "DELETE" }, `/webhooks/${id}`, { force: "true" }, Schema.Unknown))

/**
 * One active webhook per subscribed topic delivering to `url`, signed with `secret`: missing ones are created,
 * paused or disabled ones made active again (with the secret), extra copies deleted. Idempotent.
 */
export const ensureWebhooks = (url: string, secret: Redacted.Redacted<string>) =>
  Effect.gen(function*() {
    const existing = (yield* listWebhooks).filter((w) => w.delivery_url === url)
    return yield* Effect.forEach(SUBSCRIBED_TOPICS, (topic) =>
      Effect.gen(function*() {
        const same = existing.filter((w) => w.topic === topic).sort((a, b) => Number(b.status === "active") - Number(a.status === "active") || a.id - b.id)
        const [kept, ...duplicates] = same
        for (const d of duplicates) yield* remove(d.id)
        const removedDuplicates = duplicates.map((d) => d.id)
        if (kept === undefined) return { topic, id: (yield* create(topic, url, secret)).id, action: "created", removedDuplicates } satisfies Ensured
        if (kept.status !== "active") return { topic, id: (yield* reactivate(kept.id, secret)).id, action: "reactivated", removedDuplicates } satisfies Ensured
        return { topic, id: kept.id, action: "unchanged", removedDuplicates } satisfies Ensured
      }))
  })

/** Deletes every webhook delivering to `url`; returns their ids. */
export const removeWebhooks = (url: string) =>
  Effect.gen(function*() {
    const ours = (yield* listWebhooks).filter((w) => w.delivery_url === url)
    for (const w of ours) yield* remove(w.id)
    return ours.map((w) => w.id)
  })
