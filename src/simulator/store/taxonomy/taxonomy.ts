// Terms and global attributes: product categories, tags, shipping classes and the terms of each global attribute
// share WordPress's term id sequence. Products refer to categories, tags and shipping classes by term id and to
// attribute terms by name (as WooCommerce's product attributes list option names), so renaming or deleting a
// term is carried into the products here.
import { BRANDS, CATEGORIES, SHIPPING_CLASSES, TAGS } from "../catalog.ts"
import { wcError } from "../rest/errors.ts"
import type { Ids } from "../ids.ts"
import type { ProductRecord } from "../model.ts"
import { sanitizeTitle } from "../text.ts"

export type TermGroup = "product_cat" | "product_tag" | "product_brand" | "product_shipping_class" | `attribute:${number}`

export interface TermRecord {
  readonly id: number
  group: TermGroup
  name: string
  slug: string
  description: string
  parent: number
  menuOrder: number
  /** Categories only. */
  display: "default" | "products" | "subcategories" | "both"
  /** Attachment id of a category's image, 0 for none. */
  imageId: number
}

export interface AttributeRecord {
  readonly id: number
  name: string
  /** Without the pa_ prefix the API shows. */
  slug: string
  type: string
  orderBy: "menu_order" | "name" | "name_num" | "id"
  hasArchives: boolean
}

export interface TermInput {
  name?: string
  slug?: string
  description?: string
  parent?: number
  menu_order?: number
  display?: TermRecord["display"]
  imageId?: number
}

export interface AttributeInput {
  name?: string
  slug?: string
  type?: string
  order_by?: AttributeRecord["orderBy"]
  has_archives?: boolean
}

/** The category products fall back to when they have none (WordPress's default_product_cat). */
export const DEFAULT_CATEGORY = 15

const INITIAL_ATTRIBUTES: ReadonlyArray<{ id: number; name: string; terms: string[] }> = [
  { id: 1, name: "Size", terms: ["S", "M", "L", "XL"] },
  { id: 2, name: "Color", terms: ["Black", "White", "Blue", "Red", "Green"] },
]

export class Taxonomy {
  readonly terms = new Map<number, TermRecord>()
  readonly attributes = new Map<number, AttributeRecord>()

  constructor(
    private readonly ids: Ids,
    private readonly products: () => Iterable<ProductRecord>,
  ) {
    const add = (id: number, group: TermGroup, name: string, slug = sanitizeTitle(name), menuOrder = 0) => {
      ids.reserve("term", id)
      this.terms.set(id, { id, group, name, slug, description: "", parent: 0, menuOrder, display: "default", imageId: 0 })
    }
    for (const c of CATEGORIES) add(c.id, "product_cat", c.name, c.slug)
    for (const a of INITIAL_ATTRIBUTES) {
      ids.reserve("attribute", a.id)
      this.attributes.set(a.id, { id: a.id, name: a.name, slug: sanitizeTitle(a.name), type: "select", orderBy: "menu_order", hasArchives: false })
      a.terms.forEach((name, i) => add(ids.take("term"), `attribute:${a.id}`, name, sanitizeTitle(name), i))
    }
    for (const name of TAGS) add(ids.take("term"), "product_tag", name)
    for (const name of BRANDS) add(ids.take("term"), "product_brand", name)
    for (const name of SHIPPING_CLASSES) add(ids.take("term"), "product_shipping_class", name)
  }

  inGroup(group: TermGroup): TermRecord[] {
    return [...this.terms.values()].filter((t) => t.group === group)
  }

  term(group: TermGroup, id: number): TermRecord | undefined {
    const t = this.terms.get(id)
    return t?.group === group ? t : undefined
  }

  termBySlug(group: TermGroup, slug: string): TermRecord | undefined {
    return this.inGroup(group).find((t) => t.slug === slug)
  }

  createTerm(group: TermGroup, input: TermInput): TermRecord {
    const name = input.name?.trim() ?? ""
    if (name === "") throw wcError(400, "rest_missing_callback_param", "Missing parameter(s): name", { params: ["name"] })
    const parent = input.parent ?? 0
    this.checkParent(group, parent, undefined)
    const existing = this.inGroup(group).find((t) => t.name.toLowerCase() === name.toLowerCase() && t.parent === parent)
    if (existing !== undefined) {
      throw wcError(400, "term_exists", "A term with the name provided already exists with this parent.", { resource_id: existing.id })
    }
    const slug = this.freeSlug(group, input.slug === undefined || input.slug === "" ? sanitizeTitle(name) : sanitizeTitle(input.slug), undefined)
    const term: TermRecord = {
      id: this.ids.take("term"),
      group,
      name,
      slug,
      description: input.description ?? "",
      parent,
      menuOrder: input.menu_order ?? 0,
      display: input.display ?? "default",
      imageId: input.imageId ?? 0,
    }
    this.terms.set(term.id, term)
    return term
  }

  updateTerm(term: TermRecord, input: TermInput): TermRecord {
    if (input.parent !== undefined) this.checkParent(term.group, input.parent, term.id)
    if (input.name !== undefined && input.name.trim() !== "" && input.name !== term.name) this.renameOptions(term, input.name.trim())
    if (input.slug !== undefined && input.slug !== "") term.slug = this.freeSlug(term.group, sanitizeTitle(input.slug), term.id)
    if (input.description !== undefined) term.description = input.description
    if (input.parent !== undefined) term.parent = input.parent
    if (input.menu_order !== undefined) term.menuOrder = input.menu_order
    if (input.display !== undefined) term.display = input.display
    if (input.imageId !== undefined) term.imageId = input.imageId
    return term
  }

  /**
   * wp_delete_term: children move up to the deleted term's parent, products lose the term (a product left
   * without a category gets the default one). The default category itself cannot be deleted.
   */
  deleteTerm(term: TermRecord): void {
    if (term.id === DEFAULT_CATEGORY) throw wcError(500, "woocommerce_rest_cannot_delete", "The resource cannot be deleted.")
    for (const child of this.terms.values()) if (child.parent === term.id) child.parent = term.parent
    this.terms.delete(term.id)
    for (const p of this.products()) {
      switch (term.group) {
        case "product_cat":
          if (p.categories.includes(term.id)) {
            p.categories = p.categories.filter((id) => id !== term.id)
            if (p.categories.length === 0) p.categories = [DEFAULT_CATEGORY]
          }
          break
        case "product_tag":
          if (p.extra?.tags?.includes(term.id)) p.extra.tags = p.extra.tags.filter((id) => id !== term.id)
          break
        case "product_brand":
          if (p.extra?.brands?.includes(term.id)) p.extra.brands = p.extra.brands.filter((id) => id !== term.id)
          break
        case "product_shipping_class":
          if (p.extra?.shippingClass === term.id) p.extra.shippingClass = 0
          break
        default:
          for (const a of p.attributes) if (a.id === this.attributeIdOf(term)) a.options = a.options.filter((o) => o !== term.name)
      }
    }
  }

  /** Products (published ones, as WordPress counts) holding the term. */
  count(term: TermRecord): number {
    let n = 0
    for (const p of this.products()) if (p.status === "publish" && this.holds(p, term)) n++
    return n
  }

  holds(p: ProductRecord, term: TermRecord): boolean {
    switch (term.group) {
      case "product_cat":
        return p.categories.includes(term.id)
      case "product_tag":
        return p.extra?.tags?.includes(term.id) ?? false
      case "product_brand":
        return p.extra?.brands?.includes(term.id) ?? false
      case "product_shipping_class":
        return p.extra?.shippingClass === term.id
      default:
        return p.attributes.some((a) => a.id === this.attributeIdOf(term) && a.options.includes(term.name))
    }
  }

  // ---- global attributes ----

  createAttribute(input: AttributeInput): AttributeRecord {
    const name = input.name?.trim() ?? ""
    if (name === "") throw wcError(400, "rest_missing_callback_param", "Missing parameter(s): name", { params: ["name"] })
    const slug = this.attributeSlug(input.slug ?? name, undefined)
    const attribute: AttributeRecord = {
      id: this.ids.take("attribute"),
      name,
      slug,
      type: input.type ?? "select",
      orderBy: input.order_by ?? "menu_order",
      hasArchives: input.has_archives ?? false,
    }
    this.attributes.set(attribute.id, attribute)
    return attribute
  }

  updateAttribute(a: AttributeRecord, input: AttributeInput): AttributeRecord {
    if (input.slug !== undefined) a.slug = this.attributeSlug(input.slug, a.id)
    if (input.name !== undefined && input.name.trim() !== "") {
      a.name = input.name.trim()
      for (const p of this.products()) for (const pa of p.attributes) if (pa.id === a.id) pa.name = a.name
    }
    if (input.type !== undefined) a.type = input.type
    if (input.order_by !== undefined) a.orderBy = input.order_by
    if (input.has_archives !== undefined) a.hasArchives = input.has_archives
    return a
  }

  /** wc_delete_attribute: the attribute's terms go with it. */
  deleteAttribute(a: AttributeRecord): void {
    for (const t of this.inGroup(`attribute:${a.id}`)) this.terms.delete(t.id)
    this.attributes.delete(a.id)
  }

  /** The attribute's term named `name`, created when missing (WooCommerce does so when a product lists a new option). */
  ensureAttributeTerm(attributeId: number, name: string): TermRecord {
    const group: TermGroup = `attribute:${attributeId}`
    return this.inGroup(group).find((t) => t.name === name) ?? this.createTerm(group, { name })
  }

  attributeIdOf(term: TermRecord): number {
    return term.group.startsWith("attribute:") ? Number(term.group.slice("attribute:".length)) : 0
  }

  private renameOptions(term: TermRecord, name: string): void {
    const attributeId = this.attributeIdOf(term)
    if (attributeId > 0) {
      for (const p of this.products()) for (const a of p.attributes) if (a.id === attributeId) a.options = a.options.map((o) => (o === term.name ? name : o))
    }
    term.name = name
  }

  private checkParent(group: TermGroup, parent: number, self: number | undefined): void {
    if (parent === 0) return
    if (group !== "product_cat" || parent === self || this.term(group, parent) === undefined) {
      throw wcError(400, "woocommerce_rest_term_invalid_parent", "Parent term does not exist.")
    }
  }

  private freeSlug(group: TermGroup, slug: string, self: number | undefined): string {
    const taken = this.inGroup(group).some((t) => t.slug === slug && t.id !== self)
    if (taken) throw wcError(400, "duplicate_term_slug", `The slug "${slug}" is already in use by another term.`)
    return slug
  }

  private attributeSlug(text: string, self: number | undefined): string {
    const slug = sanitizeTitle(text.replace(/^pa_/, "")).slice(0, 28)
    if (slug === "") throw wcError(400, "woocommerce_rest_cannot_create", "Please, provide an attribute name.")
    if ([...this.attributes.values()].some((a) => a.slug === slug && a.id !== self)) {
      throw wcError(400, "woocommerce_rest_cannot_create", `Slug "${slug}" is already in use. Change it, please.`)
    }
    return slug
  }
}
