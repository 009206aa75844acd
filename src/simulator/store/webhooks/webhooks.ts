// /webhooks (seed part 2 §4.15): list, read, create, update, delete (trash by default, force=true for good) and
// batch. The secret is write-only; resource, event and hooks are derived from the topic.
import { json } from "../../http/reply.ts"
import type { Router } from "../../http/router.ts"
import type { Handler, RequestContext } from "../app.ts"
import { batchHandler } from "../rest/batch.ts"
import { type Body, str } from "../rest/body-fields.ts"
import { wcError } from "../rest/errors.ts"
import { idFilter, includeOrder, readCommonList } from "../rest/list-params.ts"
import { listReply, pageOf } from "../rest/list-reply.ts"
import { within } from "../rest/query.ts"
import { type Json, type RenderContext, dateFields, links } from "../rest/render.ts"
import type { StoreState } from "../state.ts"
import { type WebhookInput, type WebhookRecord, hooksOf, topicParts } from "./webhook-store.ts"

const ORDERBY = ["date", "id", "include", "title", "slug"] as const

const webhookJson = (w: WebhookRecord, r: RenderContext): Json => {
  const { resource, event } = topicParts(w.topic)
  return {
    id: w.id,
    name: w.name,
    status: w.status,
    topic: w.topic,
    resource,
    event,
    hooks: hooksOf(w.topic),
    delivery_url: w.deliveryUrl,
    ...dateFields(r, "date_created", w.created),
    ...dateFields(r, "date_modified", w.modified),
    _links: links(r, { self: `/webhooks/${w.id}`, collection: "/webhooks" }),
  }
}

const webhookInput = (b: Body): WebhookInput => ({
  name: str(b, "name"),
  status: str(b, "status"),
  topic: str(b, "topic"),
  delivery_url: str(b, "delivery_url"),
  secret: str(b, "secret"),
})

const findWebhook = (s: StoreState, id: number, status = 404): WebhookRecord => {
  const w = s.webhooks.byId.get(id)
  if (w === undefined) throw wcError(status, "woocommerce_rest_webhook_invalid_id", "Invalid ID.")
  return w
}

const create = (ctx: RequestContext, b: Body): WebhookRecord => {
  const w = ctx.state.webhooks.create(webhookInput(b))
  ctx.state.hooks.emit("woocommerce_new_webhook", w.id)
  return w
}

const listWebhooks: Handler = (ctx) => {
  const s = ctx.state
  const p = ctx.args()
  const common = readCommonList(p, s.site, { orderby: ORDERBY, orderbyDefault: "date", modifiedFilter: false, createdFilter: true })
  const status = p.oneOf("status", ["all", "active", "paused", "disabled"], "all")
  const search = p.string("search")?.toLowerCase()
  p.check()
  const ids = idFilter(common)
  const created = within(common.created, common.local, s.site)
  const rows = [...s.webhooks.byId.values()].filter(
    (w) =>
      !w.trashed &&
      (status === "all" || w.status === status) &&
      (ids === undefined || ids(w.id)) &&
      created(w.created) &&
      (search === undefined || search === "" || w.name.toLowerCase().includes(search)),
  )
  const compare: (a: WebhookRecord, b: WebhookRecord) => number =
    common.orderby === "include"
      ? includeOrder(common)
      : common.orderby === "id"
        ? (a, b) => a.id - b.id
        : common.orderby === "title" || common.orderby === "slug"
          ? (a, b) => a.name.localeCompare(b.name)
          : (a, b) => a.created - b.created
  const r = ctx.render(2)
  return listReply(ctx, common, pageOf(rows, common, compare, s.listRng()), (w) => webhookJson(w, r))
}

const remove = (ctx: RequestContext, id: number): Json => {
  const w = findWebhook(ctx.state, id)
  const body = webhookJson(w, ctx.render(2))
  ctx.state.webhooks.delete(w)
  return body
}

export const registerWebhooks = (router: Router<Handler>): void => {
  const update: Handler = (ctx, { id }) => json(200, webhookJson(ctx.state.webhooks.update(findWebhook(ctx.state, Number(id), 400), webhookInput(ctx.body)), ctx.render(2)))
  router
    .add("GET", "/webhooks", listWebhooks)
    .add("POST", "/webhooks", (ctx) => {
      const w = create(ctx, ctx.body)
      return json(201, webhookJson(w, ctx.render(2)), { Location: `${ctx.apiUrl}/webhooks/${w.id}` })
    })
    .add(
      "POST",
      "/webhooks/batch",
      batchHandler({
        create: (ctx, b) => webhookJson(create(ctx, b), ctx.render(2)),
        update: (ctx, b) => webhookJson(ctx.state.webhooks.update(findWebhook(ctx.state, Number(b["id"] ?? 0), 400), webhookInput(b)), ctx.render(2)),
        delete: remove,
      }),
    )
    .add("GET", "/webhooks/:id", (ctx, { id }) => json(200, webhookJson(findWebhook(ctx.state, Number(id)), ctx.render(2))))
    .add("PUT", "/webhooks/:id", update)
    .add("PATCH", "/webhooks/:id", update)
    .add("POST", "/webhooks/:id", update)
    .add("DELETE", "/webhooks/:id", (ctx, { id }) => {
      const p = ctx.args()
      const force = p.bool("force", false)
      p.check()
      if (!force) return json(200, webhookJson(ctx.state.webhooks.trash(findWebhook(ctx.state, Number(id))), ctx.render(2)))
      return json(200, remove(ctx, Number(id)))
    })
}
