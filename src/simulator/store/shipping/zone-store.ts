// Shipping zones, their locations and their method instances. Zone 0 ("Locations not covered by your other
// zones") always exists and cannot be edited or deleted. Instance ids 1-3 are the United States zone's flat rate,
// free shipping and local pickup, the instance ids generated orders show on their shipping lines.
import { wcError } from "../rest/errors.ts"
import type { Ids } from "../ids.ts"
import type { SettingType } from "../settings/settings-catalog.ts"

export interface ZoneLocation {
  code: string
  type: "postcode" | "state" | "country" | "continent"
}

export interface ZoneRecord {
  readonly id: number
  name: string
  order: number
  locations: ZoneLocation[]
}

export interface ZoneMethodRecord {
  readonly instanceId: number
  readonly zoneId: number
  readonly methodId: string
  order: number
  enabled: boolean
  settings: Record<string, string>
}

interface MethodSettingDef {
  id: string
  label: string
  description: string
  type: SettingType | "price"
  default: string
  tip: string
  placeholder: string
  options?: Readonly<Record<string, string>>
}

interface MethodDef {
  id: string
  title: string
  description: string
  settings: ReadonlyArray<MethodSettingDef>
}

const setting = (id: string, label: string, type: MethodSettingDef["type"], def: string, extra: Partial<MethodSettingDef> = {}): MethodSettingDef => ({
  id,
  label,
  description: "",
  type,
  default: def,
  tip: "",
  placeholder: "",
  ...extra,
})

const TAX_STATUS = setting("tax_status", "Tax status", "select", "taxable", { options: { taxable: "Taxable", none: "None" } })

const METHODS: ReadonlyArray<MethodDef> = [
  {
    id: "flat_rate",
    title: "Flat rate",
    description: "Lets you charge a fixed rate for shipping.",
    settings: [setting("title", "Name", "text", "Flat rate", { tip: "Your customers will see the name of this shipping method during checkout." }), TAX_STATUS, setting("cost", "Cost", "text", "0", { placeholder: "0" })],
  },
  {
    id: "free_shipping",
    title: "Free shipping",
    description: "Free shipping is a special method which can be triggered with coupons and minimum spends.",
    settings: [
      setting("title", "Name", "text", "Free shipping", { tip: "Your customers will see the name of this shipping method during checkout." }),
      setting("requires", "Free shipping requires", "select", "", {
        options: { "": "No requirement", coupon: "A valid free shipping coupon", min_amount: "A minimum order amount", either: "A minimum order amount OR a coupon", both: "A minimum order amount AND a coupon" },
      }),
      setting("min_amount", "Minimum order amount", "price", "0", { placeholder: "0" }),
      setting("ignore_discounts", "Coupons discounts", "checkbox", "no", { description: "Apply minimum order rule before coupon discount" }),
    ],
  },
  {
    id: "local_pickup",
    title: "Local pickup",
    description: "Allow customers to pick up orders themselves. By default, when using local pickup store base taxes will apply regardless of customer address.",
    settings: [setting("title", "Name", "text", "Local pickup", { tip: "Your customers will see the name of this shipping method during checkout." }), TAX_STATUS, setting("cost", "Cost", "text", "", { placeholder: "0" })],
  },
]

export const REST_OF_WORLD = 0

export interface ZoneInput {
  name?: string
  order?: number
}

export interface MethodInput {
  order?: number
  enabled?: boolean
  settings?: Record<string, unknown>
}

export class ZoneStore {
  readonly zones = new Map<number, ZoneRecord>()
  readonly methods = new Map<number, ZoneMethodRecord>()

  constructor(private readonly ids: Ids) {
    this.zones.set(REST_OF_WORLD, { id: REST_OF_WORLD, name: "Locations not covered by your other zones", order: 0, locations: [] })
    const us = this.addZone({ name: "United States (US)", order: 0 })
    us.locations = [{ code: "US", type: "country" }]
    const europe = this.addZone({ name: "Europe", order: 1 })
    europe.locations = [{ code: "EU", type: "continent" }]
    this.addMethod(us.id, "flat_rate", { settings: { cost: "10.00" } })
    this.addMethod(us.id, "free_shipping", { settings: { requires: "min_amount", min_amount: "75" } })
    this.addMethod(us.id, "local_pickup", {})
    this.addMethod(europe.id, "flat_rate", { settings: { cost: "15.00" } })
  }

  zone(id: number): ZoneRecord {
    const zone = this.zones.get(id)
    if (zone === undefined) throw wcError(404, "woocommerce_rest_shipping_zone_invalid", "Resource does not exist.")
    return zone
  }

  /** The zones other than zone 0 refuse edits. */
  editable(id: number): ZoneRecord {
    const zone = this.zone(id)
    if (zone.id === REST_OF_WORLD) throw wcError(403, "woocommerce_rest_shipping_zone_invalid_zone", 'The "locations not covered by your other zones" zone cannot be updated.')
    return zone
  }

  addZone(input: ZoneInput): ZoneRecord {
    const name = input.name?.trim() ?? ""
    if (name === "") throw wcError(400, "rest_missing_callback_param", "Missing parameter(s): name", { params: ["name"] })
    const zone: ZoneRecord = { id: this.ids.take("zone"), name, order: input.order ?? 0, locations: [] }
    this.zones.set(zone.id, zone)
    return zone
  }

  updateZone(zone: ZoneRecord, input: ZoneInput): ZoneRecord {
    if (input.name !== undefined && input.name.trim() !== "") zone.name = input.name.trim()
    if (input.order !== undefined) zone.order = input.order
    return zone
  }

  deleteZone(zone: ZoneRecord): void {
    for (const m of this.methodsOf(zone.id)) this.methods.delete(m.instanceId)
    this.zones.delete(zone.id)
  }

  methodsOf(zoneId: number): ZoneMethodRecord[] {
    return [...this.methods.values()].filter((m) => m.zoneId === zoneId).sort((a, b) => a.order - b.order || a.instanceId - b.instanceId)
  }

  method(zoneId: number, instanceId: number): ZoneMethodRecord {
    const m = this.methods.get(instanceId)
    if (m === undefined || m.zoneId !== zoneId) throw wcError(404, "woocommerce_rest_shipping_zone_method_invalid", "Resource does not exist.")
    return m
  }

  addMethod(zoneId: number, methodId: string | undefined, input: MethodInput): ZoneMethodRecord {
    this.zone(zoneId)
    if (methodId === undefined || methodId === "") throw wcError(400, "rest_missing_callback_param", "Missing parameter(s): method_id", { params: ["method_id"] })
    const def = METHODS.find((m) => m.id === methodId)
    if (def === undefined) throw wcError(400, "woocommerce_rest_shipping_zone_method_invalid", "Resource cannot be created.")
    const method: ZoneMethodRecord = {
      instanceId: this.ids.take("zoneMethod"),
      zoneId,
      methodId,
      order: this.methodsOf(zoneId).length + 1,
      enabled: true,
      settings: Object.fromEntries(def.settings.map((s) => [s.id, s.default])),
    }
    this.updateMethod(method, input)
    this.methods.set(method.instanceId, method)
    return method
  }

  updateMethod(method: ZoneMethodRecord, input: MethodInput): ZoneMethodRecord {
    const def = methodDef(method)
    const settings = { ...method.settings }
    for (const [key, value] of Object.entries(input.settings ?? {})) {
      const s = def.settings.find((x) => x.id === key)
      if (s === undefined) continue
      const text = String(value)
      if (s.options !== undefined && !(text in s.options)) throw wcError(400, "rest_setting_value_invalid", "An invalid setting value was passed.")
      if (s.type === "checkbox" && text !== "yes" && text !== "no") throw wcError(400, "rest_setting_value_invalid", "An invalid setting value was passed.")
      settings[key] = text
    }
    method.settings = settings
    if (input.order !== undefined) method.order = input.order
    if (input.enabled !== undefined) method.enabled = input.enabled
    return method
  }
}

export const methodDef = (m: ZoneMethodRecord): MethodDef => METHODS.find((d) => d.id === m.methodId)!
