// Compact in-memory records. Orders hold numbers only (cents, epoch seconds, indexes into catalogues) so that
// 300,000 of them fit comfortably; the JSON the API returns is rendered from them on demand.

export const ORDER_STATUSES = [
  "pending",
  "processing",
  "on-hold",
  "completed",
  "cancelled",
  "refunded",
  "failed",
  "checkout-draft",
  "trash",
] as const
export type OrderStatus = (typeof ORDER_STATUSES)[number]

/** Statuses the sales report and the net-sales definition count. */
export const COUNTED_STATUSES: ReadonlySet<OrderStatus> = new Set(["completed", "processing", "on-hold", "refunded"])

/** An order line in cents: subtotal before, total after discounts; tax on the total. */
export interface LineRecord {
  readonly id: number
  readonly productId: number
  readonly variationId: number
  quantity: number
  subtotal: number
  total: number
  tax: number
}

/** A refunded part of an order line, all amounts positive (the API shows them negated). */
export interface RefundLineRecord {
  readonly id: number
  /** The order line item it refunds. */
  readonly orderItemId: number
  quantity: number
  total: number
  tax: number
}

export interface Address {
  first_name: string
  last_name: string
  company: string
  address_1: string
  address_2: string
  city: string
  state: string
  postcode: string
  country: string
  email?: string
  phone: string
}

export interface MetaEntry {
  id: number
  key: string
  value: unknown
}

export interface FeeRecord {
  name: string
  total: number
}

/** Order fields only ever set through writes; generated orders derive them from `person` and the id. */
export interface OrderExtra {
  billing?: Partial<Address>
  shipping?: Partial<Address>
  payment_method?: string
  payment_method_title?: string
  transaction_id?: string
  customer_note?: string
  meta_data?: MetaEntry[]
}

export interface OrderRecord {
  readonly id: number
  parentId: number
  status: OrderStatus
  currency: string
  customerId: number
  /** Seed of the billing/shipping identity (see people.ts). */
  person: number
  createdVia: string
  /** Epoch seconds (UTC); 0 for paid/completed means "never". */
  created: number
  modified: number
  paid: number
  completed: number
  /** Index in TAX_RATES, -1 for an untaxed order. */
  taxRate: number
  /** Named as in the API, so tests can count an order's lines the way a client would. */
  line_items: LineRecord[]
  /** Index in the state's shipping methods, -1 for no shipping line. */
  shipMethod: number
  shipping: number
  shippingTax: number
  fees: FeeRecord[] | null
  /** Index in COUPONS, -1 for none. */
  coupon: number
  /** Grand total in cents, kept in step with the lines. */
  total: number
  /** Item ids of the shipping, fee, coupon and tax lines follow consecutively from here. */
  itemBase: number
  refundIds: number[]
  extra: OrderExtra | null
}

export interface RefundRecord {
  readonly id: number
  readonly orderId: number
  created: number
  /** Positive cents; as in WooCommerce it wins over the line totals when both were given. */
  amount: number
  reason: string
  refundedBy: number
  refundedPayment: boolean
  line_items: RefundLineRecord[]
  /** Item id of the refund's tax line; 0 when no tax was refunded. */
  taxItemId: number
}

export interface CustomerRecord {
  readonly id: number
  created: number
  modified: number
  person: number
  email: string
  firstName: string
  lastName: string
  username: string
  role: string
  /** Null until written: then derived from `person`. */
  billing: Address | null
  shipping: Address | null
  isPaying: boolean
  metaData: MetaEntry[]
}

export interface ProductAttribute {
  id: number
  name: string
  options: string[]
  variation: boolean
}

export interface ProductRecord {
  readonly id: number
  name: string
  slug: string
  sku: string
  type: "simple" | "variable"
  status: "publish" | "draft" | "pending" | "private"
  featured: boolean
  description: string
  shortDescription: string
  regularPrice: number
  /** -1 when not on sale. */
  salePrice: number
  created: number
  modified: number
  manageStock: boolean
  stockQuantity: number | null
  stockStatus: "instock" | "outofstock" | "onbackorder"
  totalSales: number
  categories: number[]
  attributes: ProductAttribute[]
  variationIds: number[]
  weight: string
  menuOrder: number
  /** Review counts for ratings 1..5. */
  ratings: number[]
}

export interface VariationRecord {
  readonly id: number
  readonly parentId: number
  sku: string
  regularPrice: number
  salePrice: number
  created: number
  modified: number
  /** Option chosen for each variation attribute of the parent, in the parent's order. */
  options: string[]
  stockQuantity: number | null
  weight: string
}

/** A complete data set; the simulator takes ownership of the records (they are mutated in place). */
export interface StoreData {
  products: ProductRecord[]
  variations: VariationRecord[]
  customers: CustomerRecord[]
  orders: OrderRecord[]
  refunds: RefundRecord[]
}

export const priceOf = (p: { regularPrice: number; salePrice: number }): number => (p.salePrice >= 0 ? p.salePrice : p.regularPrice)
