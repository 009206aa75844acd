// The simulated shop's catalogue (products and their variations) and its customers, drawn from the store's generator.
import type { Rng } from "../../http/prng.ts"
import type { CustomerRecord, ProductAttribute, ProductRecord, VariationRecord } from "../model.ts"
import { personFor } from "../people.ts"
import { DAY, HOUR } from "../dates.ts"

const ADJECTIVES = ["Classic", "Organic", "Vintage", "Slim", "Everyday", "Premium", "Recycled", "Rugged", "Cozy", "Minimal", "Bold", "Soft"]
const NOUNS: ReadonlyArray<[noun: string, category: number, sized: boolean]> = [
  ["T-Shirt", 16, true], ["Hoodie", 16, true], ["Jeans", 16, true], ["Sneakers", 16, true], ["Beanie", 17, false],
  ["Wallet", 17, false], ["Backpack", 17, false], ["Sunglasses", 17, false], ["Mug", 18, false], ["Candle", 18, false],
  ["Throw Blanket", 18, false], ["Desk Lamp", 18, false], ["Headphones", 19, false], ["Phone Case", 19, false],
  ["Charger", 19, false], ["Notebook", 20, false], ["Cookbook", 20, false], ["Poster", 15, false],
]
const SIZES = ["S", "M", "L", "XL"]
const COLORS = ["Black", "White", "Blue", "Red", "Green"]

export interface Catalogue {
  products: ProductRecord[]
  variations: VariationRecord[]
}

export const generateCatalogue = (rng: Rng, count: number, startUtc: number, nextId: () => number): Catalogue => {
  const products: ProductRecord[] = []
  const variations: VariationRecord[] = []
  const names = new Set<string>()
  for (let i = 0; i < count; i++) {
    const [noun, category, sized] = NOUNS[i % NOUNS.length]!
    let name = `${rng.pick(ADJECTIVES)} ${noun}`
    while (names.has(name)) name = `${rng.pick(ADJECTIVES)} ${noun} ${names.size}`
    names.add(name)
    const id = nextId()
    const created = startUtc - rng.int(30 * DAY, 400 * DAY)
    const variable = rng.chance(sized ? 0.8 : 0.2)
    const regular = rng.int(4, 120) * 100 + rng.pick([0, 0, 50, 99])
    const attributes: ProductAttribute[] = []
    if (variable && sized) attributes.push({ id: 1, name: "Size", options: SIZES.slice(0, rng.int(2, 4)), variation: true })
    if (variable) attributes.push({ id: 2, name: "Color", options: COLORS.slice(0, rng.int(2, 3)), variation: true })
    const product: ProductRecord = {
      id,
      name,
      slug: name.toLowerCase().replace(/[^a-z0-9]+/g, "-"),
      sku: `SKU-${1000 + i}`,
      type: variable ? "variable" : "simple",
      status: rng.chance(0.95) ? "publish" : "draft",
      featured: rng.chance(0.1),
      description: `<p>The ${name.toLowerCase()} you will want to keep.</p>`,
      shortDescription: `A ${noun.toLowerCase()}.`,
      regularPrice: variable ? 0 : regular,
      salePrice: !variable && rng.chance(0.15) ? Math.round(regular * 0.8) : -1,
      created,
      modified: created + rng.int(0, 20 * DAY),
      manageStock: rng.chance(0.5),
      stockQuantity: rng.int(0, 200),
      stockStatus: rng.chance(0.93) ? "instock" : "outofstock",
      totalSales: 0,
      categories: [category],
      attributes,
      variationIds: [],
      weight: String(rng.int(1, 30) / 10),
      menuOrder: 0,
      ratings: [rng.int(0, 2), rng.int(0, 3), rng.int(0, 6), rng.int(0, 15), rng.int(0, 25)],
    }
    if (variable) {
      const combos = attributes.reduce<string[][]>((acc, a) => acc.flatMap((c) => a.options.map((o) => [...c, o])), [[]])
      for (const options of combos.slice(0, 6)) {
        const price = regular + rng.pick([0, 0, 200, 500])
        const vCreated = created + rng.int(0, HOUR)
        variations.push({
          id: nextId(),
          parentId: id,
          sku: `${product.sku}-${options.map((o) => o.slice(0, 2).toUpperCase()).join("")}`,
          regularPrice: price,
          salePrice: rng.chance(0.1) ? Math.round(price * 0.85) : -1,
          created: vCreated,
          modified: vCreated + rng.int(0, 20 * DAY),
          options,
          stockQuantity: rng.chance(0.6) ? rng.int(0, 80) : null,
          weight: product.weight,
        })
        product.variationIds.push(variations[variations.length - 1]!.id)
      }
    }
    products.push(product)
  }
  return { products, variations }
}

export const generateCustomers = (rng: Rng, count: number, startUtc: number, endUtc: number): CustomerRecord[] => {
  const times = Array.from({ length: count }, () => (rng.chance(0.3) ? startUtc - rng.int(DAY, 365 * DAY) : rng.int(startUtc, endUtc - 1))).sort((a, b) => a - b)
  return times.map((created, i) => {
    const id = i + 2 // user 1 is the shop manager
    const { billing } = personFor(id)
    return {
      id,
      created,
      modified: rng.chance(0.5) ? created : created + rng.int(60, 60 * DAY),
      person: id,
      email: billing.email,
      firstName: billing.first_name,
      lastName: billing.last_name,
      username: billing.email.split("@")[0]!,
      role: "customer",
      billing: null,
      shipping: null,
      isPaying: false,
      metaData: [],
    }
  })
}

/** Gives the roles asked for to customers spread evenly by id, without drawing from the generator's numbers. */
export const assignRoles = (customers: CustomerRecord[], roles: Readonly<Record<string, number>>): void => {
  const wanted = Object.entries(roles).flatMap(([role, count]) => Array.from({ length: count }, () => role))
  if (wanted.length > customers.length) throw new Error(`${wanted.length} users with roles asked for, but only ${customers.length} customers`)
  wanted.forEach((role, j) => {
    customers[Math.floor(((j + 0.5) * customers.length) / wanted.length)]!.role = role
  })
}
