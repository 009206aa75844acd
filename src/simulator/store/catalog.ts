// Fixed reference data of the simulated shop: currencies, tax rates, places, coupons, shipping and payment methods.

export const STORE_CURRENCY = "USD"

export const CURRENCIES: Readonly<Record<string, { symbol: string; /** price multiplier from USD, per mille */ rate: number }>> = {
  USD: { symbol: "$", rate: 1000 },
  EUR: { symbol: "€", rate: 920 },
  GBP: { symbol: "£", rate: 790 },
}

export interface TaxRate {
  id: number
  country: string
  state: string
  name: string
  /** Parts per million: 88750 is 8.875 %. */
  ppm: number
}

export const TAX_RATES: ReadonlyArray<TaxRate> = [
  { id: 1, country: "US", state: "NY", name: "NY Tax", ppm: 88750 },
  { id: 2, country: "US", state: "CA", name: "CA Tax", ppm: 72500 },
  { id: 3, country: "US", state: "TX", name: "TX Tax", ppm: 62500 },
  { id: 4, country: "US", state: "WA", name: "WA Tax", ppm: 65000 },
  { id: 5, country: "US", state: "FL", name: "FL Tax", ppm: 60000 },
  { id: 6, country: "US", state: "IL", name: "IL Tax", ppm: 62500 },
  { id: 7, country: "GB", state: "", name: "VAT", ppm: 200000 },
  { id: 8, country: "DE", state: "", name: "MwSt", ppm: 190000 },
  { id: 9, country: "FR", state: "", name: "TVA", ppm: 200000 },
  { id: 10, country: "NL", state: "", name: "BTW", ppm: 210000 },
  { id: 11, country: "ES", state: "", name: "IVA", ppm: 210000 },
]

export const rateCode = (r: TaxRate): string => [r.country, r.state, r.name.toUpperCase(), "1"].filter((s) => s !== "").join("-")

export const taxRateFor = (country: string, state: string): number =>
  TAX_RATES.findIndex((r) => r.country === country && (r.state === "" || r.state === state))

export interface Place {
  country: string
  state: string
  city: string
  postcode: string
  streets: ReadonlyArray<string>
  /** Relative share of shoppers. */
  weight: number
}

export const PLACES: ReadonlyArray<Place> = [
  { country: "US", state: "NY", city: "New York", postcode: "10001", streets: ["Broadway", "W 34th St", "Lexington Ave"], weight: 16 },
  { country: "US", state: "NY", city: "Brooklyn", postcode: "11201", streets: ["Atlantic Ave", "Court St"], weight: 7 },
  { country: "US", state: "CA", city: "Los Angeles", postcode: "90012", streets: ["S Spring St", "Sunset Blvd"], weight: 12 },
  { country: "US", state: "CA", city: "San Francisco", postcode: "94103", streets: ["Market St", "Mission St"], weight: 8 },
  { country: "US", state: "TX", city: "Austin", postcode: "78701", streets: ["Congress Ave", "E 6th St"], weight: 8 },
  { country: "US", state: "WA", city: "Seattle", postcode: "98101", streets: ["Pike St", "1st Ave"], weight: 7 },
  { country: "US", state: "FL", city: "Miami", postcode: "33131", streets: ["Brickell Ave", "Biscayne Blvd"], weight: 8 },
  { country: "US", state: "IL", city: "Chicago", postcode: "60601", streets: ["N Michigan Ave", "W Randolph St"], weight: 8 },
  { country: "US", state: "OR", city: "Portland", postcode: "97205", streets: ["SW Morrison St", "NW 23rd Ave"], weight: 6 },
  { country: "GB", state: "", city: "London", postcode: "SW1A 1AA", streets: ["Baker Street", "Oxford Street"], weight: 5 },
  { country: "GB", state: "", city: "Manchester", postcode: "M1 1AE", streets: ["Deansgate", "Market Street"], weight: 3 },
  { country: "DE", state: "", city: "Berlin", postcode: "10115", streets: ["Invalidenstraße", "Torstraße"], weight: 4 },
  { country: "FR", state: "", city: "Paris", postcode: "75002", streets: ["Rue Montmartre", "Rue de Rivoli"], weight: 3 },
  { country: "NL", state: "", city: "Amsterdam", postcode: "1012 JS", streets: ["Damrak", "Kalverstraat"], weight: 3 },
  { country: "ES", state: "", city: "Madrid", postcode: "28013", streets: ["Gran Vía", "Calle Mayor"], weight: 2 },
]

export const currencyOf = (country: string): string => (country === "US" ? "USD" : country === "GB" ? "GBP" : "EUR")

export interface Coupon {
  code: string
  type: "percent" | "fixed_cart" | "fixed_product"
  /** Percent, or cents for the fixed kinds. */
  amount: number
}

export const COUPONS: ReadonlyArray<Coupon> = [
  { code: "save10", type: "percent", amount: 10 },
  { code: "welcome15", type: "percent", amount: 15 },
  { code: "summer20", type: "percent", amount: 20 },
  { code: "5off", type: "fixed_cart", amount: 500 },
  { code: "2offeach", type: "fixed_product", amount: 200 },
]

export const COUPON_TYPE_NAMES: Readonly<Record<Coupon["type"], string>> = {
  percent: "Percentage discount",
  fixed_cart: "Fixed cart discount",
  fixed_product: "Fixed product discount",
}

export interface ShippingMethod {
  id: string
  title: string
}

/** Methods the generator uses; writes may add others (the state keeps an interned list that starts with these). */
export const SHIPPING_METHODS: ReadonlyArray<ShippingMethod> = [
  { id: "flat_rate", title: "Flat rate" },
  { id: "free_shipping", title: "Free shipping" },
  { id: "local_pickup", title: "Local pickup" },
]

export const PAYMENT_METHODS: ReadonlyArray<{ id: string; title: string; prefix: string }> = [
  { id: "stripe", title: "Credit Card (Stripe)", prefix: "ch_" },
  { id: "stripe", title: "Credit Card (Stripe)", prefix: "ch_" },
  { id: "ppcp-gateway", title: "PayPal", prefix: "" },
  { id: "bacs", title: "Direct bank transfer", prefix: "" },
  { id: "cod", title: "Cash on delivery", prefix: "" },
]

export const CATEGORIES: ReadonlyArray<{ id: number; name: string; slug: string }> = [
  { id: 15, name: "Uncategorized", slug: "uncategorized" },
  { id: 16, name: "Clothing", slug: "clothing" },
  { id: 17, name: "Accessories", slug: "accessories" },
  { id: 18, name: "Home", slug: "home" },
  { id: 19, name: "Electronics", slug: "electronics" },
  { id: 20, name: "Books", slug: "books" },
]

/** Product tags and shipping classes of the simulated shop (term ids follow the categories and attribute terms). */
export const TAGS: ReadonlyArray<string> = ["New", "Bestseller", "Gift idea", "Eco"]
export const SHIPPING_CLASSES: ReadonlyArray<string> = ["Small parcel", "Bulky"]
export const BRANDS: ReadonlyArray<string> = ["Northwind", "Fjord & Co"]

export const ORDER_STATUS_NAMES: Readonly<Record<string, string>> = {
  pending: "Pending payment",
  processing: "Processing",
  "on-hold": "On hold",
  completed: "Completed",
  cancelled: "Cancelled",
  refunded: "Refunded",
  failed: "Failed",
  "checkout-draft": "Draft",
}

export const WC_VERSION = "9.4.2"
/** The shop manager account that records refunds. */
export const ADMIN_USER_ID = 1
