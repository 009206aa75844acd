// A small storefront (Store API, /wp-json/wc/store/v1): published products, a cart per Cart-Token and checkout,
// which places an order through the same state writes as the REST API (created_via "store-api"). It is public;
// Basic credentials of a customer (username or e-mail, and the password set through the REST API) log the
// shopper in. Its POSTs go through the optional rate limiter of seed part 2 §8.
import type { IncomingMessage } from "node:http"
import { readBasicAuth } from "../../http/basic-auth.ts"
import { HttpError } from "../../http/errors.ts"
import { type Reply, json } from "../../http/reply.ts"
import { Router } from "../../http/router.ts"
import type { StorefrontHandler } from "../app.ts"
import { type Body, address, int, isObject, str } from "../rest/body-fields.ts"
import { wcError } from "../rest/errors.ts"
import type { OrderStatus } from "../model.ts"
import { orderKeyOf } from "../orders/order-json.ts"
import { currentPrice } from "../products/product-json.ts"
import { CHECKOUT_RATE_LIMIT_SETTING } from "../settings/settings-catalog.ts"
import { passwordHash } from "../customers/customer-writes.ts"
import type { StoreState } from "../state.ts"
import { RateLimiter, type StorefrontRateLimitOptions, countsAsPost } from "./storefront-limit.ts"

interface Shopper {
  userId: number
  cart: Map<string, { id: number; quantity: number }>
  token: string
}

type StoreHandler = (shopper: Shopper, body: Body, params: Readonly<Record<string, string>>) => Reply

/** What the payment methods do at checkout: cash on delivery is processing at once, a bank transfer waits on hold. */
const PAYMENT_STATUS: Readonly<Record<string, OrderStatus>> = { cod: "processing", bacs: "on-hold", cheque: "on-hold" }

const parseBody = (text: string): Body => {
  if (text.trim() === "") return {}
  try {
    const value: unknown = JSON.parse(text)
    return isObject(value) ? value : {}
  } catch {
    throw wcError(400, "rest_invalid_json", "Invalid JSON body passed.")
  }
}

export const createStorefront = (s: StoreState, limit: StorefrontRateLimitOptions): StorefrontHandler => {
  const limiter = new RateLimiter(limit, () => s.now())
  const carts = new Map<string, Shopper["cart"]>()
  let nextCart = 1

  const userOf = (req: IncomingMessage): number => {
    const basic = readBasicAuth(req.headers.authorization)
    if (basic === undefined) return 0
    const c = [...s.customerById.values()].find((x) => x.username === basic.user || x.email.toLowerCase() === basic.user.toLowerCase())
    return c?.passwordHash !== undefined && c.passwordHash === passwordHash(basic.password) ? c.id : 0
  }

  const cartJson = (shopper: Shopper) => {
    const items = [...shopper.cart].map(([key, item]) => {
      const p = s.productById.get(item.id)
      const price = p === undefined ? undefined : currentPrice(p, s.now())
      return { key, id: item.id, quantity: item.quantity, name: p?.name ?? "", prices: { price: price === undefined ? "" : String(price), currency_code: "USD", currency_minor_unit: 2 } }
    })
    return { items, items_count: items.reduce((n, i) => n + i.quantity, 0) }
  }

  const router = new Router<StoreHandler>()
  router
    .add("GET", "/products", () =>
      json(
        200,
        [...s.productById.values()]
          .filter((p) => p.status === "publish")
          .map((p) => {
            const price = currentPrice(p, s.now())
            return { id: p.id, name: p.name, slug: p.slug, prices: { price: price === undefined ? "" : String(price), currency_code: "USD", currency_minor_unit: 2 }, is_in_stock: p.stockStatus !== "outofstock" }
          }),
      ),
    )
    .add("GET", "/cart", (shopper) => json(200, cartJson(shopper)))
    .add("POST", "/cart/add-item", (shopper, body) => {
      const id = int(body, "id") ?? 0
      const p = s.productById.get(id) ?? s.variationById.get(id)
      if (p === undefined) throw wcError(400, "woocommerce_rest_cart_invalid_product", "This product cannot be added to the cart.")
      const key = `item_${id}`
      shopper.cart.set(key, { id, quantity: (shopper.cart.get(key)?.quantity ?? 0) + (int(body, "quantity") ?? 1) })
      return json(201, cartJson(shopper))
    })
    .add("POST", "/cart/remove-item", (shopper, body) => {
      if (!shopper.cart.delete(str(body, "key") ?? "")) throw wcError(409, "woocommerce_rest_cart_invalid_key", "Cart item no longer exists or is invalid.")
      return json(200, cartJson(shopper))
    })
    .add("POST", "/checkout", (shopper, body) => {
      if (shopper.cart.size === 0) throw wcError(400, "woocommerce_rest_cart_empty", "Cannot create order from empty cart.")
      const billing = address(body, "billing_address") ?? {}
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(billing.email ?? "")) throw wcError(400, "woocommerce_rest_invalid_email_address", "A valid email address is required.")
      const method = str(body, "payment_method") ?? "cod"
      const lines = [...shopper.cart.values()].map((item) => {
        const v = s.variationById.get(item.id)
        return { product_id: v?.parentId ?? item.id, variation_id: v === undefined ? 0 : v.id, quantity: item.quantity }
      })
      const order = s.createOrder({
        status: PAYMENT_STATUS[method] ?? "pending",
        created_via: "store-api",
        customer_id: shopper.userId,
        billing,
        shipping: address(body, "shipping_address") ?? { ...billing, email: undefined },
        payment_method: method,
        ...(str(body, "customer_note") === undefined ? {} : { customer_note: str(body, "customer_note") }),
        line_items: lines,
      })
      shopper.cart.clear()
      return json(200, {
        order_id: order.id,
        status: order.status,
        order_key: orderKeyOf(order),
        customer_id: order.customerId,
        payment_method: method,
        payment_result: { payment_status: order.status === "pending" ? "pending" : "success", payment_details: [], redirect_url: "" },
      })
    })

  return async (req, _url, path, bodyText) => {
    const method = req.method ?? "GET"
    const headers: Record<string, string> = {}
    try {
      const given = req.headers["cart-token"]
      const token = typeof given === "string" && carts.has(given) ? given : `ct_${(nextCart++).toString(16).padStart(8, "0")}`
      if (!carts.has(token)) carts.set(token, new Map())
      headers["Cart-Token"] = token
      const shopper: Shopper = { userId: userOf(req), cart: carts.get(token)!, token }
      const checkout = /^\/checkout\/?$/i.test(path) && s.settings.value(CHECKOUT_RATE_LIMIT_SETTING) === "yes"
      if (countsAsPost(req) && (checkout || limit.enabled === true)) Object.assign(headers, limiter.hit(req, shopper.userId, checkout))
      const match = router.match(method, path)
      if (match === undefined) throw wcError(404, "rest_no_route", "No route was found matching the URL and request method.")
      const reply = match.handler(shopper, parseBody(bodyText), match.params)
      return { ...reply, headers: { ...headers, ...reply.headers } }
    } catch (error) {
      if (!(error instanceof HttpError)) throw error
      return { status: error.status, body: error.body, headers: { ...headers, ...error.headers } }
    }
  }
}
