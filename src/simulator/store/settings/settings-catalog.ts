// The shop's setting groups and options (a representative part of WooCommerce's), with their types, defaults and
// choices. Values live in SettingsStore; these definitions never change.
import { COUNTRY_NAMES, currencyName } from "./geo.ts"

export type SettingType = "text" | "email" | "number" | "color" | "password" | "textarea" | "select" | "multiselect" | "radio" | "image_width" | "checkbox"

export interface SettingDef {
  id: string
  label: string
  description: string
  type: SettingType
  default: unknown
  tip?: string
  placeholder?: string
  options?: Readonly<Record<string, string>>
  /** The simulated shop's value where it differs from the default. */
  value?: unknown
}

export interface SettingGroup {
  id: string
  label: string
  description: string
  settings: ReadonlyArray<SettingDef>
}

/** The advanced-features switch that limits checkout on the storefront API to 3 requests per 60 seconds. */
export const CHECKOUT_RATE_LIMIT_SETTING = "woocommerce_feature_rate_limit_checkout_enabled"

const yesNo = (id: string, label: string, description: string, def: "yes" | "no", value?: "yes" | "no"): SettingDef => ({
  id,
  label,
  description,
  type: "checkbox",
  default: def,
  ...(value === undefined ? {} : { value }),
})
const text = (id: string, label: string, description: string, def: string, value?: string): SettingDef => ({
  id,
  label,
  description,
  type: "text",
  default: def,
  ...(value === undefined ? {} : { value }),
})
const choice = (id: string, label: string, description: string, type: "select" | "radio", options: Record<string, string>, def: string): SettingDef => ({
  id,
  label,
  description,
  type,
  default: def,
  options,
})

const STORE_COUNTRIES = ["US", "CA", "GB", "DE", "FR", "NL", "ES"]
const CURRENCY_CHOICES = ["USD", "EUR", "GBP", "CAD", "AUD", "JPY"]

export const SETTING_GROUPS: ReadonlyArray<SettingGroup> = [
  {
    id: "general",
    label: "General",
    description: "",
    settings: [
      text("woocommerce_store_address", "Address line 1", "The street address for your business location.", "", "350 Fifth Avenue"),
      text("woocommerce_store_address_2", "Address line 2", "An additional, optional address line for your business location.", ""),
      text("woocommerce_store_city", "City", "The city in which your business is located.", "", "New York"),
      choice("woocommerce_default_country", "Country / State", "The country and state or province, if any, in which your business is located.", "select", { "US:NY": "United States (US) — New York", "US:CA": "United States (US) — California", GB: "United Kingdom (UK)", DE: "Germany" }, "US:CA"),
      text("woocommerce_store_postcode", "Postcode / ZIP", "The postal code, if any, in which your business is located.", "", "10118"),
      choice("woocommerce_allowed_countries", "Selling location(s)", "This option lets you limit which countries you are willing to sell to.", "select", { all: "Sell to all countries", all_except: "Sell to all countries, except for…", specific: "Sell to specific countries" }, "all"),
      {
        id: "woocommerce_specific_allowed_countries",
        label: "Sell to specific countries",
        description: "",
        type: "multiselect",
        default: [],
        options: Object.fromEntries(STORE_COUNTRIES.map((c) => [c, COUNTRY_NAMES[c] ?? c])),
      },
      yesNo("woocommerce_calc_taxes", "Enable taxes", "Enable tax rates and calculations", "no", "yes"),
      yesNo("woocommerce_enable_coupons", "Enable coupons", "Enable the use of coupon codes", "yes"),
      choice("woocommerce_currency", "Currency", "This controls what currency prices are listed at in the catalog and which currency gateways will take payments in.", "select", Object.fromEntries(CURRENCY_CHOICES.map((c) => [c, `${currencyName(c)} (${c})`])), "USD"),
      choice("woocommerce_currency_pos", "Currency position", "This controls the position of the currency symbol.", "select", { left: "Left", right: "Right", left_space: "Left with space", right_space: "Right with space" }, "left"),
      text("woocommerce_price_thousand_sep", "Thousand separator", "This sets the thousand separator of displayed prices.", ","),
      text("woocommerce_price_decimal_sep", "Decimal separator", "This sets the decimal separator of displayed prices.", "."),
      { id: "woocommerce_price_num_decimals", label: "Number of decimals", description: "This sets the number of decimal points shown in displayed prices.", type: "number", default: "2" },
    ],
  },
  {
    id: "products",
    label: "Products",
    description: "",
    settings: [
      choice("woocommerce_weight_unit", "Weight unit", "This controls what unit you will define weights in.", "select", { kg: "kg", g: "g", lbs: "lbs", oz: "oz" }, "kg"),
      choice("woocommerce_dimension_unit", "Dimensions unit", "This controls what unit you will define lengths in.", "select", { m: "m", cm: "cm", mm: "mm", in: "in", yd: "yd" }, "cm"),
      yesNo("woocommerce_enable_reviews", "Enable product reviews", "Enable product reviews", "yes"),
      yesNo("woocommerce_review_rating_verification_required", "Reviews can only be left by \"verified owners\"", "Reviews can only be left by \"verified owners\"", "no"),
      yesNo("woocommerce_manage_stock", "Manage stock", "Enable stock management", "yes"),
      { id: "woocommerce_notify_low_stock_amount", label: "Low stock threshold", description: "When product stock reaches this amount you will be notified via email.", type: "number", default: "2" },
      { id: "woocommerce_hold_stock_minutes", label: "Hold stock (minutes)", description: "Hold stock (for unpaid orders) for x minutes.", type: "number", default: "60" },
    ],
  },
  {
    id: "tax",
    label: "Tax",
    description: "",
    settings: [
      choice("woocommerce_prices_include_tax", "Prices entered with tax", "", "radio", { yes: "Yes, I will enter prices inclusive of tax", no: "No, I will enter prices exclusive of tax" }, "no"),
      choice("woocommerce_tax_based_on", "Calculate tax based on", "This option determines which address is used to calculate tax.", "select", { shipping: "Customer shipping address", billing: "Customer billing address", base: "Shop base address" }, "shipping"),
      yesNo("woocommerce_tax_round_at_subtotal", "Rounding", "Round tax at subtotal level, instead of rounding per line", "no"),
      choice("woocommerce_tax_display_shop", "Display prices in the shop", "", "select", { incl: "Including tax", excl: "Excluding tax" }, "excl"),
      choice("woocommerce_tax_display_cart", "Display prices during cart and checkout", "", "select", { incl: "Including tax", excl: "Excluding tax" }, "excl"),
      choice("woocommerce_tax_total_display", "Display tax totals", "", "select", { single: "As a single total", itemized: "Itemized" }, "itemized"),
    ],
  },
  {
    id: "shipping",
    label: "Shipping",
    description: "",
    settings: [
      yesNo("woocommerce_enable_shipping_calc", "Calculations", "Enable the shipping calculator on the cart page", "yes"),
      yesNo("woocommerce_shipping_cost_requires_address", "Hide shipping costs until an address is entered", "Hide shipping costs until an address is entered", "no"),
      choice("woocommerce_ship_to_destination", "Shipping destination", "This controls which shipping address is used by default.", "radio", { shipping: "Default to customer shipping address", billing: "Default to customer billing address", billing_only: "Force shipping to the customer billing address" }, "billing"),
      yesNo("woocommerce_shipping_debug_mode", "Debug mode", "Enable debug mode", "no"),
    ],
  },
  {
    id: "account",
    label: "Accounts & Privacy",
    description: "",
    settings: [
      yesNo("woocommerce_enable_guest_checkout", "Guest checkout", "Allow customers to place orders without an account", "yes"),
      yesNo("woocommerce_enable_checkout_login_reminder", "Login", "Allow customers to log into an existing account during checkout", "no"),
      yesNo("woocommerce_enable_signup_and_login_from_checkout", "Account creation", "Allow customers to create an account during checkout", "no"),
      yesNo("woocommerce_enable_myaccount_registration", "Account creation on My account", "Allow customers to create an account on the \"My account\" page", "no"),
      yesNo("woocommerce_registration_generate_password", "Send password setup link", "Send password setup link (recommended)", "yes"),
    ],
  },
  {
    id: "email",
    label: "Emails",
    description: "",
    settings: [
      text("woocommerce_email_from_name", "\"From\" name", "How the sender name appears in outgoing WooCommerce emails.", "", "Simulated Shop"),
      { id: "woocommerce_email_from_address", label: "\"From\" address", description: "How the sender email appears in outgoing WooCommerce emails.", type: "email", default: "", value: "shop@example.com" },
      { id: "woocommerce_email_header_image", label: "Header image", description: "Paste the URL of an image you want to show in the email header.", type: "text", default: "", placeholder: "N/A" },
      { id: "woocommerce_email_base_color", label: "Base color", description: "The base color for WooCommerce email templates.", type: "color", default: "#720eec" },
      { id: "woocommerce_email_background_color", label: "Background color", description: "The background color for WooCommerce email templates.", type: "color", default: "#f7f7f7" },
    ],
  },
  {
    id: "advanced",
    label: "Advanced",
    description: "",
    settings: [
      yesNo("woocommerce_force_ssl_checkout", "Force secure checkout", "Force SSL (HTTPS) on the checkout pages", "no"),
      text("woocommerce_checkout_pay_endpoint", "Pay", "Endpoint for the \"Checkout → Pay\" page.", "order-pay"),
      text("woocommerce_myaccount_orders_endpoint", "Orders", "Endpoint for the \"My account → Orders\" page.", "orders"),
      yesNo("woocommerce_allow_tracking", "Enable tracking", "Allow usage of WooCommerce to be tracked", "no"),
      yesNo(CHECKOUT_RATE_LIMIT_SETTING, "Rate limit Checkout", "Enables rate limiting of the checkout block and the storefront API's checkout endpoint (3 requests per 60 seconds).", "no"),
    ],
  },
]
