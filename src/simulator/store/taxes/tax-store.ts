// Tax rates and tax classes. The rates start as the catalogue's (which the order arithmetic keeps using, so an
// edit here does not reprice orders, as WooCommerce never reprices placed orders either). Deleting a class deletes
// its rates, as WC_Tax::delete_tax_class_by does; "standard" is built in and cannot be deleted.
import { TAX_RATES } from "../catalog.ts"
import { wcError } from "../rest/errors.ts"
import type { Ids } from "../ids.ts"
import { sanitizeTitle } from "../text.ts"

export interface TaxRateRecord {
  readonly id: number
  country: string
  state: string
  postcodes: string[]
  cities: string[]
  /** Four decimals, as WooCommerce stores it: "8.8750". */
  rate: string
  name: string
  priority: number
  compound: boolean
  shipping: boolean
  order: number
  /** Tax class slug; "" is the standard class. */
  taxClass: string
}

export interface TaxClassRecord {
  slug: string
  name: string
}

export interface TaxRateInput {
  country?: string
  state?: string
  postcode?: string
  city?: string
  postcodes?: string[]
  cities?: string[]
  rate?: string
  name?: string
  priority?: number
  compound?: boolean
  shipping?: boolean
  order?: number
  class?: string
}

const STANDARD_CLASS: TaxClassRecord = { slug: "standard", name: "Standard rate" }

/** WC_Tax::format_tax_rate. */
const formatRate = (rate: string): string => {
  const n = Number(rate)
  if (rate.trim() === "" || !Number.isFinite(n)) throw wcError(400, "rest_invalid_param", "Invalid parameter(s): rate", { params: { rate: "rate is not a number." } })
  return n.toFixed(4)
}

/** Locations are stored upper-cased, trimmed, without blanks and without the "*" wildcard (WC_Tax::_update_tax_rate_locations). */
const locations = (values: string[]): string[] => [...new Set(values.map((v) => v.trim().toUpperCase()).filter((v) => v !== "" && v !== "*"))]

export class TaxStore {
  readonly rates = new Map<number, TaxRateRecord>()
  readonly classes: TaxClassRecord[] = [
    { slug: "reduced-rate", name: "Reduced rate" },
    { slug: "zero-rate", name: "Zero rate" },
  ]

  constructor(private readonly ids: Ids) {
    TAX_RATES.forEach((r, i) => {
      ids.reserve("taxRate", r.id)
      this.rates.set(r.id, {
        id: r.id,
        country: r.country,
        state: r.state,
        postcodes: [],
        cities: [],
        rate: (r.ppm / 10000).toFixed(4),
        name: r.name,
        priority: 1,
        compound: false,
        shipping: true,
        order: i,
        taxClass: "",
      })
    })
  }

  /** Every class the API lists, standard first. */
  allClasses(): TaxClassRecord[] {
    return [STANDARD_CLASS, ...this.classes]
  }

  createRate(input: TaxRateInput): TaxRateRecord {
    const rate: TaxRateRecord = { id: this.ids.take("taxRate"), country: "", state: "", postcodes: [], cities: [], rate: "0.0000", name: "", priority: 1, compound: false, shipping: true, order: 0, taxClass: "" }
    this.apply(rate, input)
    this.rates.set(rate.id, rate)
    return rate
  }

  updateRate(rate: TaxRateRecord, input: TaxRateInput): TaxRateRecord {
    this.apply(rate, input)
    return rate
  }

  createClass(name: string | undefined): TaxClassRecord {
    const trimmed = name?.trim() ?? ""
    if (trimmed === "") throw wcError(400, "rest_missing_callback_param", "Missing parameter(s): name", { params: ["name"] })
    const slug = sanitizeTitle(trimmed)
    if (this.allClasses().some((c) => c.slug === slug || c.name.toLowerCase() === trimmed.toLowerCase())) {
      throw wcError(400, "woocommerce_rest_tax_class_exists", "Tax class already exists")
    }
    const taxClass = { slug, name: trimmed }
    this.classes.push(taxClass)
    return taxClass
  }

  /** Deletes the class and every rate of it. */
  deleteClass(slug: string): TaxClassRecord {
    const i = this.classes.findIndex((c) => c.slug === slug)
    if (i < 0) throw wcError(404, "woocommerce_rest_invalid_id", "Invalid resource id.")
    const [removed] = this.classes.splice(i, 1)
    for (const rate of [...this.rates.values()]) if (rate.taxClass === slug) this.rates.delete(rate.id)
    return removed!
  }

  private apply(rate: TaxRateRecord, input: TaxRateInput): void {
    if (input.class !== undefined) {
      const slug = input.class === "standard" ? "" : input.class
      if (slug !== "" && !this.classes.some((c) => c.slug === slug)) {
        throw wcError(400, "rest_invalid_param", "Invalid parameter(s): class", { params: { class: `class is not one of ${this.allClasses().map((c) => c.slug).join(", ")}.` } })
      }
      rate.taxClass = slug
    }
    if (input.country !== undefined) rate.country = input.country.trim().toUpperCase()
    if (input.state !== undefined) rate.state = input.state.trim().toUpperCase()
    if (input.rate !== undefined) rate.rate = formatRate(input.rate)
    if (input.name !== undefined) rate.name = input.name
    if (input.priority !== undefined) rate.priority = input.priority
    if (input.compound !== undefined) rate.compound = input.compound
    if (input.shipping !== undefined) rate.shipping = input.shipping
    if (input.order !== undefined) rate.order = input.order
    // The deprecated single fields are applied first and may hold ";"-separated lists; the arrays win.
    if (input.postcode !== undefined && input.postcode !== "") rate.postcodes = locations(input.postcode.split(";"))
    if (input.city !== undefined && input.city !== "") rate.cities = locations(input.city.split(";"))
    if (input.postcodes !== undefined) rate.postcodes = locations(input.postcodes)
    if (input.cities !== undefined) rate.cities = locations(input.cities)
  }
}
