// Contact fields: the built-in set, custom fields created over the API, and how a written value is
// checked and stored for each field type.
import type { Reply } from "../http/reply.ts"
import type { Params as RouteParams } from "../http/router.ts"
import type { ApiRequest, ApiRoute } from "./api.ts"
import { notFound, validationError, type FieldErrors } from "./errors.ts"
import { pageOf, readOrder, readWindow, sortRows } from "./list-query.ts"
import { asRecord, readFlag } from "./php-params.ts"
import type { FieldDefinition, FieldValue, MarketingState } from "./state.ts"
import { publishDetails } from "./wire-format.ts"

export const FIELD_GROUPS = ["core", "social", "personal", "professional"] as const

const FIELD_TYPES = new Set([
  "boolean", "country", "date", "datetime", "email", "html", "locale", "lookup", "multiselect", "number",
  "region", "select", "tel", "text", "textarea", "time", "timezone", "url",
])

const BUILT_IN: ReadonlyArray<readonly [alias: string, label: string, type: string, group: string]> = [
  ["title", "Title", "lookup", "core"],
  ["firstname", "First Name", "text", "core"],
  ["lastname", "Last Name", "text", "core"],
  ["company", "Primary company", "text", "core"],
  ["position", "Position", "text", "core"],
  ["email", "Email", "email", "core"],
  ["mobile", "Mobile", "tel", "core"],
  ["phone", "Phone", "tel", "core"],
  ["fax", "Fax", "tel", "core"],
  ["address1", "Address Line 1", "text", "core"],
  ["address2", "Address Line 2", "text", "core"],
  ["city", "City", "text", "core"],
  ["state", "State", "region", "core"],
  ["zipcode", "Zip Code", "text", "core"],
  ["country", "Country", "country", "core"],
  ["preferred_locale", "Preferred Locale", "locale", "core"],
  ["timezone", "Preferred Timezone", "timezone", "core"],
  ["last_active", "Date Last Active", "datetime", "core"],
  ["attribution_date", "Attribution Date", "datetime", "core"],
  ["attribution", "Attribution", "number", "core"],
  ["website", "Website", "url", "core"],
  ["facebook", "Facebook", "text", "social"],
  ["foursquare", "Foursquare", "text", "social"],
  ["instagram", "Instagram", "text", "social"],
  ["linkedin", "LinkedIn", "text", "social"],
  ["skype", "Skype", "text", "social"],
  ["twitter", "Twitter", "text", "social"],
]

export const defaultContactFields = (): FieldDefinition[] =>
  BUILT_IN.map(([alias, label, type, group], index) => ({
    id: index + 1,
    label,
    alias,
    type,
    group,
    order: index + 1,
    defaultValue: null,
    isRequired: false,
    isPublished: true,
    isFixed: true,
    // Email is the unique identifier contacts are merged on.
    isUniqueIdentifier: alias === "email",
    isPubliclyUpdatable: false,
    properties: {},
    dateAdded: null,
    createdBy: null,
  }))

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const INVALID = "This value is not valid."

/** A written value as the service stores it (a string, or null for blank), or the validation message. */
export const coerceFieldValue = (field: FieldDefinition, raw: unknown): { value: FieldValue } | { error: string } => {
  if (raw === null || raw === undefined || raw === "") return { value: null }
  if (Array.isArray(raw)) {
    return field.type === "multiselect" ? { value: raw.map(String).join("|") } : { error: INVALID }
  }
  if (typeof raw === "object") return { error: INVALID }
  const text = typeof raw === "boolean" ? (raw ? "1" : "0") : String(raw).trim()
  switch (field.type) {
    case "email":
      return EMAIL.test(text) ? { value: text } : { error: "A valid email is required." }
    case "number":
      return text !== "" && Number.isFinite(Number(text)) ? { value: String(Number(text)) } : { error: INVALID }
    case "boolean":
      if (["1", "true", "yes", "on"].includes(text.toLowerCase())) return { value: "1" }
      if (["0", "false", "no", "off"].includes(text.toLowerCase())) return { value: "0" }
      return { error: INVALID }
    case "date":
    case "datetime": {
      const ms = Date.parse(text)
      if (Number.isNaN(ms)) return { error: INVALID }
      const iso = new Date(ms).toISOString()
      return { value: field.type === "date" ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 19)}` }
    }
    case "url":
      return /^https?:\/\/[^\s/]+/i.test(text) ? { value: text } : { error: "This value is not a valid URL." }
    default:
      return { value: text }
  }
}

export const fieldByAlias = (state: MarketingState, alias: string): FieldDefinition | undefined =>
  state.fields.find((f) => f.alias === alias && f.isPublished)

export const fieldJson = (f: FieldDefinition): Record<string, unknown> => ({
  isPublished: f.isPublished,
  ...publishDetails({ ...f, dateModified: null, modifiedBy: null }),
  id: f.id,
  label: f.label,
  alias: f.alias,
  type: f.type,
  group: f.group,
  order: f.order,
  object: "lead",
  defaultValue: f.defaultValue,
  isRequired: f.isRequired,
  isPubliclyUpdatable: f.isPubliclyUpdatable,
  isUniqueIdentifier: f.isUniqueIdentifier,
  properties: Object.keys(f.properties).length === 0 ? [] : f.properties,
})

/**
 * The service derives the column alias from the label (transliterated, lower case, spaces to `_`,
 * 25 characters) and, when the alias is taken, appends 1, 2, … instead of failing: a client that
 * creates a field twice gets a second field, so it must look fields up first.
 */
const uniqueAlias = (state: MarketingState, wanted: string): string => {
  const base = wanted
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .trim()
    .toLowerCase()
    .replace(/\s+/g, "_")
    .replace(/[^a-z0-9_]/g, "")
    .slice(0, 25)
    .replace(/_+$/, "")
  const taken = new Set(state.fields.map((f) => f.alias))
  let alias = base
  for (let n = 1; taken.has(alias); n++) alias = `${base}${n}`
  return alias
}

const createField = (req: ApiRequest): Reply => {
  const body = asRecord(req.body) ?? {}
  const label = typeof body["label"] === "string" ? body["label"].trim() : ""
  const type = body["type"] === undefined ? "text" : String(body["type"])
  const group = body["group"] === undefined ? "core" : String(body["group"])
  const errors: FieldErrors = {}
  if (label === "") errors["label"] = ["A value is required."]
  if (!FIELD_TYPES.has(type)) errors["type"] = ["The value you selected is not a valid choice."]
  if (!(FIELD_GROUPS as readonly string[]).includes(group)) errors["group"] = ["The value you selected is not a valid choice."]
  const alias = uniqueAlias(req.state, typeof body["alias"] === "string" && body["alias"] !== "" ? body["alias"] : label)
  if (label !== "" && alias === "") errors["alias"] = ["A value is required."]
  if (Object.keys(errors).length > 0) throw validationError(errors)

  const field: FieldDefinition = {
    id: req.state.nextId("field"),
    label,
    alias,
    type,
    group,
    order: req.state.fields.length + 1,
    defaultValue: body["defaultValue"] === undefined || body["defaultValue"] === "" ? null : String(body["defaultValue"]),
    isRequired: readFlag(body["isRequired"]) ?? false,
    isPublished: readFlag(body["isPublished"]) ?? true,
    isFixed: false,
    isUniqueIdentifier: readFlag(body["isUniqueIdentifier"]) ?? false,
    isPubliclyUpdatable: readFlag(body["isPubliclyUpdatable"]) ?? false,
    properties: asRecord(body["properties"]) ?? {},
    dateAdded: req.state.now(),
    createdBy: req.principal,
  }
  req.state.fields.push(field)
  return {
    status: 201,
    body: { field: fieldJson(field) },
    headers: { Location: `${req.baseUrl}/api/fields/contact/${field.id}` },
  }
}

const SORTABLE = new Set(["id", "label", "alias", "type", "group", "order"])

const listFields = (req: ApiRequest): Reply => {
  const search = typeof req.query["search"] === "string" ? req.query["search"].toLowerCase() : ""
  const window = readWindow(req.query)
  const order = readOrder(req.query, (name) => (SORTABLE.has(name) ? name : undefined), "order")
  const matching = req.state.fields.filter(
    (f) => search === "" || f.label.toLowerCase().includes(search) || f.alias.includes(search),
  )
  const sorted = sortRows(matching, order, (f, column) => f[column as keyof FieldDefinition])
  // Like every list of the service, fields are paged (30 by default): `total` tells a client to read on.
  return { status: 200, body: { total: matching.length, fields: pageOf(sorted, window).map(fieldJson) } }
}

const getField = (req: ApiRequest, { id }: RouteParams): Reply => {
  const field = req.state.fields.find((f) => f.id === Number(id))
  if (!field) throw notFound()
  return { status: 200, body: { field: fieldJson(field) } }
}

export const fieldRoutes: ApiRoute[] = [
  ["GET", "/fields/contact", listFields],
  ["POST", "/fields/contact/new", createField],
  ["GET", "/fields/contact/:id", getField],
]
