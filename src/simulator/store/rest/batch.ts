// POST <collection>/batch: create, update and delete lists in one call, at most 100 objects across the three
// (WooCommerce's check_batch_limit answers 413). Each item succeeds or fails on its own: a failure becomes
// {id, error: {code, message, data}} in its list, as WooCommerce's batch_items does. Deletes are forced.
import { HttpError } from "../../http/errors.ts"
import { json } from "../../http/reply.ts"
import type { Handler, RequestContext } from "../app.ts"
import { type Body, isObject } from "./body-fields.ts"
import { wcError } from "./errors.ts"
import type { Json } from "./render.ts"

const BATCH_LIMIT = 100

export interface BatchOps {
  create?: (ctx: RequestContext, item: Body) => Json
  /** `item` carries the id. */
  update?: (ctx: RequestContext, item: Body) => Json
  delete?: (ctx: RequestContext, id: number) => Json
}

const list = (body: Body, key: string): unknown[] | undefined => {
  const v = body[key]
  if (v === undefined || v === null) return undefined
  if (!Array.isArray(v)) throw wcError(400, "rest_invalid_param", `Invalid parameter(s): ${key}`, { params: { [key]: `${key} is not of type array.` } })
  return v
}

const failure = (id: unknown, error: unknown): Json => {
  if (!(error instanceof HttpError)) throw error
  const body = error.body as { code: string; message: string; data: unknown }
  return { id, error: { code: body.code, message: body.message, data: body.data } }
}

const attempt = (id: unknown, run: () => Json): Json => {
  try {
    return run()
  } catch (error) {
    return failure(id, error)
  }
}

export const batchHandler =
  (ops: BatchOps): Handler =>
  (ctx) => {
    const create = ops.create === undefined ? undefined : list(ctx.body, "create")
    const update = ops.update === undefined ? undefined : list(ctx.body, "update")
    const remove = ops.delete === undefined ? undefined : list(ctx.body, "delete")
    const count = (create?.length ?? 0) + (update?.length ?? 0) + (remove?.length ?? 0)
    if (count > BATCH_LIMIT) {
      throw wcError(413, "woocommerce_rest_request_entity_too_large", `Unable to accept more than ${BATCH_LIMIT} items for this request.`)
    }
    const out: Json = {}
    if (create !== undefined && create.length > 0) {
      out["create"] = create.map((item) => attempt(0, () => (isObject(item) ? ops.create!(ctx, item) : invalidItem())))
    }
    if (update !== undefined && update.length > 0) {
      out["update"] = update.map((item) => {
        // Settings have string ids: the failed item shows the id it was sent with.
        const id = isObject(item) ? (item["id"] ?? 0) : 0
        return attempt(id, () => (isObject(item) ? ops.update!(ctx, item) : invalidItem()))
      })
    }
    if (remove !== undefined && remove.length > 0) {
      // WooCommerce skips ids that are not positive integers.
      const ids = remove.map((v) => (typeof v === "object" && v !== null ? Number((v as Body)["id"]) : Number(v))).filter((id) => Number.isInteger(id) && id > 0)
      out["delete"] = ids.map((id) => attempt(id, () => ops.delete!(ctx, id)))
    }
    return json(200, out)
  }

const invalidItem = (): never => {
  throw wcError(400, "rest_invalid_param", "Invalid parameter(s): item", { params: { item: "item is not of type object." } })
}
