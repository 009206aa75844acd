// Compact in-memory records. Orders hold numbers only (cents, epoch seconds, indexes into catalogues) so that
// 300,000 of them fit comfortably; the JSON the API returns is rendered from them on demand.
import type { NoteRecord } from "./orders/note-store.ts"
import type { ReviewRecord } from "./products/review-store.ts"

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
  /** Whether the order's lines took their quantities out of stock (WooCommerce's _order_stock_reduced). */
  stockReduced?: boolean
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
  /** sha256 of the write-only password, when one was set. */
  passwordHash?: string
}

export interface ProductAttribute {
  /** A global attribute's id; 0 for a product's own (custom) attribute. */
  id: number
  name: string
  /** Option names (term names for a global attribute). */
  options: string[]
  variation: boolean
  /** Shown on the product page; generated products show theirs. */
  visible?: boolean
}

export const PRODUCT_TYPES = ["simple", "grouped", "external", "variable"] as const
export type ProductType = (typeof PRODUCT_TYPES)[number]
/** Post statuses of products and variations; future and trash are only reached through dates and deletes. */
export type PostStatus = "publish" | "draft" | "pending" | "private" | "future" | "trash"

export interface Download {
  id: string
  name: string
  file: string
}

export interface Dimensions {
  length: string
  width: string
  height: string
}

/** Fields a product and a variation both have, only ever set through writes (records without show the defaults). */
export interface SharedExtra {
  virtual?: boolean
  downloadable?: boolean
  downloads?: Download[]
  downloadLimit?: number
  downloadExpiry?: number
  taxStatus?: "taxable" | "shipping" | "none"
  taxClass?: string
  backorders?: "no" | "notify" | "yes"
  lowStockAmount?: number | null
  dimensions?: Dimensions
  /** Term id of the shipping class, 0 for none. */
  shippingClass?: number
  metaData?: MetaEntry[]
  globalUniqueId?: string
  /** Sale window in epoch seconds, 0 for open. */
  saleFrom?: number
  saleTo?: number
  /** Written without a regular price: price "" and not purchasable. */
  noPrice?: boolean
}

export interface ProductExtra extends SharedExtra {
  catalogVisibility?: "visible" | "catalog" | "search" | "hidden"
  externalUrl?: string
  buttonText?: string
  soldIndividually?: boolean
  reviewsAllowed?: boolean
  upsellIds?: number[]
  crossSellIds?: number[]
  parentId?: number
  purchaseNote?: string
  tags?: number[]
  brands?: number[]
  /** Attachment ids, the first being the featured image. */
  images?: number[]
  defaultAttributes?: { id: number; name: string; option: string }[]
  groupedProducts?: number[]
  postPassword?: string
  /** The status before trashing, which an untrash restores. */
  trashedFrom?: PostStatus
}

export interface VariationExtra extends SharedExtra {
  description?: string
  status?: Exclude<PostStatus, "future" | "trash">
  /** true, false or "parent" (the parent product's stock is used). */
  manageStock?: boolean | "parent"
  stockStatus?: ProductRecord["stockStatus"]
  /** Attachment id, 0 for none. */
  image?: number
  galleryImageIds?: number[]
  menuOrder?: number
}

export interface ProductRecord {
  readonly id: number
  name: string
  slug: string
  sku: string
  type: ProductType
  status: PostStatus
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
  /** Counts of approved reviews rated 1..5 (kept in step by the review writes). */
  ratings: number[]
  extra?: ProductExtra
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
  extra?: VariationExtra
}

/** A complete data set; the simulator takes ownership of the records (they are mutated in place). */
export interface StoreData {
  products: ProductRecord[]
  variations: VariationRecord[]
  customers: CustomerRecord[]
  orders: OrderRecord[]
  refunds: RefundRecord[]
  /** Approved reviews should match the products' rating counts. */
  reviews?: ReviewRecord[]
  notes?: NoteRecord[]
}

export const priceOf = (p: { regularPrice: number; salePrice: number }): number => (p.salePrice >= 0 ? p.salePrice : p.regularPrice)
