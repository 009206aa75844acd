// The typed inputs of the state's writes, and the JSON write bodies checked into them: a wrongly typed field
// is a 400 rest_invalid_param naming it, as WordPress's schema validation answers.
import { type Body, address, bool, int, meta, money, objects, str } from "./rest/body-fields.ts"
import type { Address } from "./model.ts"

type Money = string | number

export interface OrderInput {
  status?: string
  currency?: string
  customer_id?: number
  parent_id?: number
  created_via?: string
  billing?: Partial<Address>
  shipping?: Partial<Address>
  payment_method?: string
  payment_method_title?: string
  transaction_id?: string
  customer_note?: string
  set_paid?: boolean
  meta_data?: ReadonlyArray<{ key: string; value: unknown }>
  /** With `id`: change that line (`quantity: 0` or `product_id: null` removes it); without: add a line. */
  line_items?: ReadonlyArray<{ id?: number; product_id?: number | null; variation_id?: number; quantity?: number; subtotal?: Money; total?: Money }>
  shipping_lines?: ReadonlyArray<{ method_id?: string; method_title?: string; total?: Money }>
  fee_lines?: ReadonlyArray<{ name?: string; total?: Money }>
  coupon_lines?: ReadonlyArray<{ code?: string }>
}

export interface RefundInput {
  amount?: Money
  reason?: string
  api_refund?: boolean
  /** Default true: the refunded quantities go back into stock. */
  api_restock?: boolean
  line_items?: ReadonlyArray<{ id: number; quantity?: number; refund_total?: Money; refund_tax?: ReadonlyArray<{ id: number; refund_total?: Money }> }>
}

export interface CustomerInput {
  email?: string
  first_name?: string
  last_name?: string
  username?: string
  password?: string
  billing?: Partial<Address>
  shipping?: Partial<Address>
  meta_data?: ReadonlyArray<{ key: string; value: unknown }>
}



export const orderInput = (b: Body): OrderInput => ({
  status: str(b, "status"),
  currency: str(b, "currency"),
  customer_id: int(b, "customer_id"),
  parent_id: int(b, "parent_id"),
  created_via: str(b, "created_via"),
  billing: address(b, "billing"),
  shipping: address(b, "shipping"),
  payment_method: str(b, "payment_method"),
  payment_method_title: str(b, "payment_method_title"),
  transaction_id: str(b, "transaction_id"),
  customer_note: str(b, "customer_note"),
  set_paid: bool(b, "set_paid"),
  meta_data: meta(b),
  line_items: objects(b, "line_items")?.map((l, i) => ({
    id: int(l, "id", `line_items[${i}][id]`),
    // product_id: null is WooCommerce's way of removing a line.
    product_id: l["product_id"] === null ? null : int(l, "product_id", `line_items[${i}][product_id]`),
    variation_id: int(l, "variation_id", `line_items[${i}][variation_id]`),
    quantity: int(l, "quantity", `line_items[${i}][quantity]`),
    subtotal: money(l, "subtotal", `line_items[${i}][subtotal]`),
    total: money(l, "total", `line_items[${i}][total]`),
  })),
  shipping_lines: objects(b, "shipping_lines")?.map((l, i) => ({
    method_id: str(l, "method_id", `shipping_lines[${i}][method_id]`),
    method_title: str(l, "method_title", `shipping_lines[${i}][method_title]`),
    total: money(l, "total", `shipping_lines[${i}][total]`),
  })),
  fee_lines: objects(b, "fee_lines")?.map((l, i) => ({ name: str(l, "name", `fee_lines[${i}][name]`), total: money(l, "total", `fee_lines[${i}][total]`) })),
  coupon_lines: objects(b, "coupon_lines")?.map((l, i) => ({ code: str(l, "code", `coupon_lines[${i}][code]`) })),
})

export const refundInput = (b: Body): RefundInput => ({
  amount: money(b, "amount"),
  reason: str(b, "reason"),
  api_refund: bool(b, "api_refund"),
  api_restock: bool(b, "api_restock"),
  line_items: objects(b, "line_items")?.map((l, i) => ({
    id: int(l, "id", `line_items[${i}][id]`) ?? 0,
    quantity: int(l, "quantity", `line_items[${i}][quantity]`),
    refund_total: money(l, "refund_total", `line_items[${i}][refund_total]`),
    refund_tax: objects(l, "refund_tax")?.map((t, j) => ({
      id: int(t, "id", `line_items[${i}][refund_tax][${j}][id]`) ?? 0,
      refund_total: money(t, "refund_total", `line_items[${i}][refund_tax][${j}][refund_total]`),
    })),
  })),
})

export const customerInput = (b: Body): CustomerInput => ({
  email: str(b, "email"),
  first_name: str(b, "first_name"),
  last_name: str(b, "last_name"),
  username: str(b, "username"),
  password: str(b, "password"),
  billing: address(b, "billing"),
  shipping: address(b, "shipping"),
  meta_data: meta(b),
})
