// WooCommerce / WordPress REST error bodies: {"code", "message", "data": {"status", ...}}.
import { HttpError } from "../../http/errors.ts"

export const wcError = (status: number, code: string, message: string, data: Record<string, unknown> = {}): HttpError =>
  new HttpError(status, { code, message, data: { status, ...data } })

/** `type` as WooCommerce names it: shop_order, shop_order_refund, customer, product, product_variation. */
export const invalidId = (type: string, status = 404): HttpError => wcError(status, `woocommerce_rest_${type}_invalid_id`, "Invalid ID.")

/** DELETE without force=true on a resource that has no trash (seed part 1 §4.1). */
export const trashNotSupported = (what: string): HttpError =>
  wcError(501, "woocommerce_rest_trash_not_supported", `${what} do not support trashing. Set 'force=true' to delete.`)

export const noRoute = (): HttpError => wcError(404, "rest_no_route", "No route was found matching the URL and request method.")

export const errorBodyFor = (status: number): unknown => {
  const [code, message] =
    status === 429
      ? ["woocommerce_rest_too_many_requests", "Too many requests. Please wait before trying again."]
      : status === 500
        ? ["internal_server_error", "<p>There has been a critical error on this website.</p>"]
        : ["http_request_failed", status === 502 ? "Bad gateway." : "Service temporarily unavailable."]
  return { code, message, data: { status } }
}
