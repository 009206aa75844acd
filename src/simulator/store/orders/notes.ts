// /orders/<id>/notes routes (seed part 2 §4.8): list (newest first, filtered by type), read, create, delete with
// force (notes are not trashed).
import { json } from "../../http/reply.ts"
import type { Router } from "../../http/router.ts"
import type { Handler } from "../app.ts"
import { bool, missing, str } from "../rest/body-fields.ts"
import { trashNotSupported, wcError } from "../rest/errors.ts"
import type { OrderRecord } from "../model.ts"
import { type NoteRecord, SYSTEM_AUTHOR, USER_AUTHOR } from "./note-store.ts"
import { type Json, type RenderContext, dateFields, editOnly, links } from "../rest/render.ts"
import type { StoreState } from "../state.ts"

const noteJson = (n: NoteRecord, r: RenderContext): Json => ({
  id: n.id,
  author: n.addedByUser ? USER_AUTHOR : SYSTEM_AUTHOR,
  ...dateFields(r, "date_created", n.created),
  note: n.note,
  customer_note: n.customerNote,
  ...editOnly(r, { added_by_user: n.addedByUser }),
  _links: links(r, { self: `/orders/${n.orderId}/notes/${n.id}`, collection: `/orders/${n.orderId}/notes`, up: `/orders/${n.orderId}` }),
})

const orderOf = (s: StoreState, id: string): OrderRecord => {
  const order = s.orderById.get(Number(id))
  if (order === undefined) throw wcError(404, "woocommerce_rest_order_invalid_id", "Invalid order ID.")
  return order
}

const noteOf = (s: StoreState, orderId: string, id: string): NoteRecord => {
  const note = s.notes.of(orderOf(s, orderId).id).find((n) => n.id === Number(id))
  if (note === undefined) throw wcError(404, "woocommerce_rest_invalid_id", "Invalid resource ID.")
  return note
}

export const registerNotes = (router: Router<Handler>): void => {
  router
    .add("GET", "/orders/:order_id/notes", (ctx, { order_id }) => {
      const order = orderOf(ctx.state, order_id!)
      const p = ctx.args()
      const type = p.oneOf("type", ["any", "customer", "internal"], "any")
      p.check()
      const r = ctx.render(2)
      const notes = ctx.state.notes
        .of(order.id)
        .filter((n) => type === "any" || n.customerNote === (type === "customer"))
        .sort((a, b) => b.created - a.created || b.id - a.id)
      return json(200, notes.map((n) => noteJson(n, r)))
    })
    .add("POST", "/orders/:order_id/notes", (ctx, { order_id }) => {
      const order = orderOf(ctx.state, order_id!)
      const note = str(ctx.body, "note")
      if (note === undefined) throw missing("note")
      const customerNote = bool(ctx.body, "customer_note") ?? false
      const addedByUser = bool(ctx.body, "added_by_user") ?? false
      const n = ctx.state.notes.add(order.id, note, { customerNote, addedByUser })
      return json(201, noteJson(n, ctx.render(2)), { Location: `${ctx.apiUrl}/orders/${order.id}/notes/${n.id}` })
    })
    .add("GET", "/orders/:order_id/notes/:id", (ctx, { order_id, id }) => json(200, noteJson(noteOf(ctx.state, order_id!, id!), ctx.render(2))))
    .add("DELETE", "/orders/:order_id/notes/:id", (ctx, { order_id, id }) => {
      const p = ctx.args()
      const force = p.bool("force", false)
      p.check()
      const note = noteOf(ctx.state, order_id!, id!)
      if (!force) throw trashNotSupported("Order notes")
      ctx.state.notes.delete(note)
      return json(200, noteJson(note, ctx.render(2)))
    })
}
