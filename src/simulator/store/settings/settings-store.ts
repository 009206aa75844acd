// Setting values, validated by type as WooCommerce's setting options controller does: a choice must be one of the
// options (a multiselect silently keeps only the valid ones), a checkbox is yes/no, a number numeric.
import { wcError } from "../rest/errors.ts"
import { SETTING_GROUPS, type SettingDef, type SettingGroup } from "./settings-catalog.ts"

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

const invalidValue = () => wcError(400, "rest_setting_value_invalid", "An invalid setting value was passed.")

const validate = (def: SettingDef, value: unknown): unknown => {
  const text = typeof value === "string" || typeof value === "number" ? String(value) : undefined
  switch (def.type) {
    case "select":
    case "radio":
      if (text === undefined || !(text in def.options!)) throw invalidValue()
      return text
    case "multiselect": {
      const items = Array.isArray(value) ? value.map(String) : text === undefined ? undefined : [text]
      if (items === undefined) throw invalidValue()
      return items.filter((v) => v in def.options!)
    }
    case "checkbox": {
      if (value === true || text === "yes") return "yes"
      if (value === false || text === "no") return "no"
      if (value === "" || value === null) return def.default
      throw invalidValue()
    }
    case "number":
      if (text === undefined || text.trim() === "" || !Number.isFinite(Number(text))) throw invalidValue()
      return text
    case "email":
      if (text === undefined || (text !== "" && !EMAIL.test(text))) throw invalidValue()
      return text
    case "image_width":
      if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalidValue()
      return value
    default:
      if (text === undefined) throw invalidValue()
      return text
  }
}

export class SettingsStore {
  private readonly values = new Map<string, unknown>()

  constructor() {
    for (const group of SETTING_GROUPS) for (const def of group.settings) this.values.set(def.id, def.value ?? def.default)
  }

  group(id: string): SettingGroup {
    const group = SETTING_GROUPS.find((g) => g.id === id)
    if (group === undefined) throw wcError(404, "rest_setting_setting_group_invalid", "Invalid setting group.")
    return group
  }

  def(groupId: string, id: string): SettingDef {
    const def = this.group(groupId).settings.find((s) => s.id === id)
    if (def === undefined) throw wcError(404, "rest_setting_setting_invalid", "Invalid setting.")
    return def
  }

  value(id: string): unknown {
    return this.values.get(id)
  }

  set(groupId: string, id: string, value: unknown): SettingDef {
    const def = this.def(groupId, id)
    if (value === undefined) throw wcError(400, "rest_missing_callback_param", "Missing parameter(s): value", { params: ["value"] })
    this.values.set(id, validate(def, value))
    return def
  }
}
