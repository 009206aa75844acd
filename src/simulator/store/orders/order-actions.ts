// /orders/<id>/actions: send_order_details, send_email and email_templates (seed part 2 §4.6, WooCommerce's
// OrderActionsRestController). Rules: an e-mail given for an order that has one needs force_email_update (else
// an error); without any billing e-mail the call fails with shop_rest_missing_email; a template the order does not
// offer fails with shop_rest_invalid_email_template; customer_invoice is send_order_details; replacing the billing
// e-mail is said in the message; each message is also left as an order note.
import { json } from "../../http/reply.ts"
import type { Router } from "../../http/router.ts"
import type { Handler, RequestContext } from "../app.ts"
import { wcError } from "../rest/errors.ts"
import type { OrderRecord } from "../model.ts"
import { orderAddresses } from "./order-json.ts"
import type { Json } from "../rest/render.ts"
import type { StoreState } from "../state.ts"

interface Template {
  id: string
  title: string
  description: string
}

const TEMPLATES: Readonly<Record<string, Template>> = Object.fromEntries(
  [
    { id: "customer_completed_order", title: "Completed order", description: "Order complete emails are sent to customers when their orders are marked completed and usually indicate that their orders have been shipped." },
    { id: "customer_failed_order", title: "Failed order", description: "Order failed emails are sent to customers when their orders are marked as failed." },
    { id: "customer_invoice", title: "Order details", description: "Order detail emails can be sent to customers containing their order information and payment links." },
    { id: "customer_on_hold_order", title: "Order on-hold", description: "This is an order notification sent to customers containing order details after an order is placed on-hold from Pending, Cancelled or Failed order status." },
    { id: "customer_processing_order", title: "Processing order", description: "This is an order notification sent to customers containing order details after payment." },
    { id: "customer_refunded_order", title: "Refunded order", description: "Order refunded emails are sent to customers when their orders are refunded." },
  ].map((t) => [t.id, t]),
)

const BY_STATUS: Readonly<Record<string, string>> = {
  completed: "customer_completed_order",
  failed: "customer_failed_order",
  "on-hold": "customer_on_hold_order",
  processing: "customer_processing_order",
  refunded: "customer_refunded_order",
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

const billingEmail = (o: OrderRecord): string => orderAddresses(o).billing.email ?? ""

/** The templates the order offers, sorted by id: none without a billing e-mail or for drafts and trashed orders. */
const templatesFor = (s: StoreState, o: OrderRecord): Template[] => {
  if (billingEmail(o) === "" || o.status === "checkout-draft" || o.status === "trash") return []
  const ids = new Set(["customer_invoice"])
  const partiallyRefunded = o.refundIds.length > 0 && s.refundable(o) > 0
  if (partiallyRefunded) ids.add("customer_refunded_order")
  const byStatus = BY_STATUS[o.status]
  if (byStatus !== undefined) ids.add(byStatus)
  return [...ids].sort().map((id) => TEMPLATES[id]!)
}

/** Template fields in a context: id shows in view (and embed), title and description in view only. */
const templateJson = (t: Template, context: "view" | "edit"): Json => (context === "view" ? { ...t } : {})

/** `_embedded.email_templates` when the request asks for embedding (`_embed`, all or email_templates). */
export const embedTemplates = (ctx: RequestContext, s: StoreState, o: OrderRecord, body: Json): Json => {
  const embed = ctx.query.get("_embed") ?? ctx.query.get("_embed[]")
  if (embed === null || !(embed === "" || embed === "1" || embed === "true" || embed.split(",").includes("email_templates"))) return body
  return { ...body, _embedded: { email_templates: [templatesFor(s, o).map((t) => templateJson(t, "view"))] } }
}

const findOrder = (s: StoreState, id: string): OrderRecord => {
  const order = s.orderById.get(Number(id))
  if (order === undefined) throw wcError(404, "woocommerce_rest_not_found", "Order not found")
  return order
}

/** Rule 2 and 5: a new e-mail replaces an existing one only with force_email_update; the message says so. */
const maybeUpdateEmail = (s: StoreState, o: OrderRecord, email: string, force: boolean): string => {
  const existing = billingEmail(o)
  if (existing === email) return ""
  if (existing !== "" && !force) throw wcError(400, "woocommerce_rest_order_billing_email_exists", "Order already has a billing email.")
  s.updateOrder(o.id, { billing: { email } })
  return `Billing email updated to ${email}.`
}

const readArgs = (ctx: RequestContext, withTemplate: boolean) => {
  const p = ctx.args()
  const email = p.string("email")
  const force = p.bool("force_email_update", false)
  const templateId = withTemplate ? p.string("template_id") : undefined
  p.check()
  if (email !== undefined && email !== "" && !EMAIL.test(email)) {
    throw wcError(400, "rest_invalid_param", "Invalid parameter(s): email", { params: { email: "Invalid email address." } })
  }
  if (withTemplate && (templateId === undefined || templateId === "")) {
    throw wcError(400, "rest_missing_callback_param", "Missing parameter(s): template_id", { params: ["template_id"] })
  }
  return { email, force, templateId }
}

const send = (ctx: RequestContext, id: string, withTemplate: boolean) => {
  const s = ctx.state
  const o = findOrder(s, id)
  const { email, force, templateId } = readArgs(ctx, withTemplate)
  const messages: string[] = []
  if (email !== undefined && email !== "") messages.push(maybeUpdateEmail(s, o, email, force))
  const to = billingEmail(o)
  if (!EMAIL.test(to)) throw wcError(400, "shop_rest_missing_email", "Order does not have an email address.")
  const via = typeof ctx.headers["user-agent"] === "string" && ctx.headers["user-agent"] !== "" ? ctx.headers["user-agent"] : "REST API"
  if (templateId === undefined || templateId === "customer_invoice") {
    if (templateId !== undefined && !templatesFor(s, o).some((t) => t.id === templateId)) throw invalidTemplate(templateId)
    messages.push(`Order details sent to ${to}, via ${via}.`)
  } else {
    const template = templatesFor(s, o).find((t) => t.id === templateId)
    if (template === undefined) throw invalidTemplate(templateId)
    messages.push(`Email template "${template.title}" sent to ${to}, via ${via}.`)
  }
  const said = messages.filter((m) => m !== "")
  for (const m of said) s.notes.add(o.id, m, { addedByUser: true })
  return json(200, { message: said.join(" ") })
}

const invalidTemplate = (id: string) => wcError(400, "shop_rest_invalid_email_template", `${id} is not a valid template for this order.`)

export const registerOrderActions = (router: Router<Handler>): void => {
  router
    .add("GET", "/orders/:id/actions/email_templates", (ctx, { id }) => {
      const o = findOrder(ctx.state, id!)
      return json(200, templatesFor(ctx.state, o).map((t) => templateJson(t, ctx.render(2).context)))
    })
    .add("POST", "/orders/:id/actions/send_order_details", (ctx, { id }) => send(ctx, id!, false))
    .add("POST", "/orders/:id/actions/send_email", (ctx, { id }) => send(ctx, id!, true))
}
