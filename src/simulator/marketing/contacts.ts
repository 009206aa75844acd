// Contacts as the real service keeps them: merged by email, blank values ignored on POST/PATCH,
// additive tags, unknown field aliases silently dropped, and a batch endpoint that reports each entry.
import type { Reply } from "../http/reply.ts"
import type { Params as RouteParams } from "../http/router.ts"
import type { ApiRequest, ApiRoute } from "./api.ts"
import { ApiError, apiError, notFound, validationError, type FieldErrors } from "./errors.ts"
import { FIELD_GROUPS, coerceFieldValue, fieldByAlias } from "./fields.ts"
import {
  likePattern, matchesWhere, pageOf, readOrder, readWhere, readWindow, searchTerms, sortRows, type SearchTerm,
} from "./list-query.ts"
import { asList, asRecord, isTruthy } from "./php-params.ts"
import type { ContactRecord, FieldValue, MarketingState } from "./state.ts"
import type { Principal } from "./tokens.ts"
import { OrderedObject, formatDate, phpArray, publishDetails } from "./wire-format.ts"

interface ContactWrite {
  /** Validated values of known fields; null stands for a blank value. */
  values: Map<string, FieldValue>
  tags: string[] | undefined
  points: number | undefined
  overwriteWithBlank: boolean
}

/** PHP's is_numeric with an integer part of 0 ("0", 0, "0.5", …). */
const isPhpZero = (raw: unknown): boolean => {
  if (typeof raw === "number") return Number.isFinite(raw) && Math.trunc(raw) === 0
  return typeof raw === "string" && /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/.test(raw) && Math.trunc(Number(raw)) === 0
}

const isBlank = (raw: unknown): boolean => raw === null || raw === undefined || raw === ""

const parseTags = (raw: unknown): string[] =>
  (typeof raw === "string" ? raw.split(",") : asList(raw).map(String))
    .map((t) => t.trim())
    .filter((t) => t !== "" && t !== "-")

const readWrite = (state: MarketingState, raw: unknown, postOrPatch: boolean): ContactWrite => {
  const body = asRecord(raw)
  if (!body) throw apiError(400, "A contact must be an object of field aliases and values.")
  const errors: FieldErrors = {}
  const values = new Map<string, FieldValue>()
  for (const [alias, rawValue] of Object.entries(body)) {
    // Unknown aliases are ignored without an error, as by the service: fields must exist first.
    const field = fieldByAlias(state, alias)
    if (!field) continue
    // On POST and PATCH the service drops numeric values whose integer part is 0 (it assumes a 0
    // was not meant to overwrite anything), so such a write never reaches the contact.
    if (postOrPatch && isPhpZero(rawValue)) continue
    const result = coerceFieldValue(field, rawValue)
    if ("error" in result) errors[alias] = [result.error]
    else values.set(alias, result.value)
  }
  let points: number | undefined
  // An empty points value never resets the accumulated points on POST/PATCH.
  if (!isBlank(body["points"]) && !(postOrPatch && isPhpZero(body["points"]))) {
    points = Number(body["points"])
    if (!Number.isInteger(points)) errors["points"] = ["This value is not valid."]
  }
  if (Object.keys(errors).length > 0) throw validationError(errors)
  return {
    values,
    tags: body["tags"] === undefined ? undefined : parseTags(body["tags"]),
    points,
    overwriteWithBlank: isTruthy(body["overwriteWithBlank"]),
  }
}

/**
 * `replace` (PUT) clears every field not written and lets blanks overwrite; otherwise blanks are
 * skipped unless overwriteWithBlank. `defaults` (POST, PUT) fills empty fields with field defaults.
 */
const applyWrite = (
  state: MarketingState,
  contact: ContactRecord,
  write: ContactWrite,
  how: { replace: boolean; defaults: boolean },
): void => {
  if (how.replace) {
    for (const field of state.fields) contact.values[field.alias] = write.values.get(field.alias) ?? null
  } else {
    for (const [alias, value] of write.values) {
      if (value !== null || write.overwriteWithBlank) contact.values[alias] = value
    }
  }
  if (how.defaults) {
    for (const field of state.fields) {
      if (field.defaultValue !== null && !write.values.has(field.alias) && (contact.values[field.alias] ?? null) === null) {
        contact.values[field.alias] = field.defaultValue
      }
    }
  }
  if (write.points !== undefined) contact.points = write.points
  // Tags are additive; `-name` removes one.
  for (const tag of write.tags ?? []) {
    if (tag.startsWith("-")) {
      contact.tags = contact.tags.filter((t) => t !== tag.slice(1))
    } else if (!contact.tags.includes(tag)) {
      state.tagId(tag) // a tag gets its id when first used
      contact.tags.push(tag)
    }
  }
  if (contact.dateIdentified === null && contact.values["email"]) contact.dateIdentified = state.now()
}

/** Emails match case-insensitively, as under the service's database collation. */
export const findByEmail = (
  state: MarketingState,
  email: FieldValue | undefined,
  except?: number,
): ContactRecord | undefined => {
  if (!email) return undefined
  const wanted = email.toLowerCase()
  return [...state.contacts.values()].find((c) => c.id !== except && c.values["email"]?.toLowerCase() === wanted)
}

const newContact = (state: MarketingState, actor: Principal): ContactRecord => {
  const contact: ContactRecord = {
    id: state.nextId("contact"),
    dateAdded: state.now(),
    dateModified: null,
    dateIdentified: null,
    createdBy: actor,
    modifiedBy: null,
    points: 0,
    values: Object.fromEntries(state.fields.map((f) => [f.alias, null])),
    tags: [],
  }
  state.contacts.set(contact.id, contact)
  return contact
}

const touch = (state: MarketingState, contact: ContactRecord, actor: Principal): void => {
  contact.dateModified = state.now()
  contact.modifiedBy = actor
}

/** POST /contacts/new semantics: an existing contact with the same email (any case) absorbs the write. */
export const createOrMergeContact = (
  state: MarketingState,
  raw: unknown,
  actor: Principal,
): { contact: ContactRecord; status: 200 | 201 } => {
  const write = readWrite(state, raw, true)
  const existing = findByEmail(state, write.values.get("email"))
  const contact = existing ?? newContact(state, actor)
  applyWrite(state, contact, write, { replace: false, defaults: true })
  if (existing) touch(state, existing, actor)
  return { contact, status: existing ? 200 : 201 }
}

/**
 * Editing a contact to another contact's email (written in this request) merges the two: the edited contact wins and keeps
 * its id, takes the other's values where its own are empty, its tags and its points.
 */
const mergeDuplicate = (state: MarketingState, winner: ContactRecord, write: ContactWrite): void => {
  const loser = findByEmail(state, write.values.get("email"), winner.id)
  if (!loser) return
  for (const [alias, value] of Object.entries(loser.values)) {
    if ((winner.values[alias] ?? null) === null) winner.values[alias] = value
  }
  winner.tags = [...new Set([...winner.tags, ...loser.tags])]
  winner.points += loser.points
  winner.dateAdded = Math.min(winner.dateAdded, loser.dateAdded)
  state.contacts.delete(loser.id)
}

export const contactJson = (state: MarketingState, c: ContactRecord): Record<string, unknown> => {
  const published = state.fields.filter((f) => f.isPublished)
  const groups = FIELD_GROUPS.map((group) => {
    const members = published.filter((f) => f.group === group)
    const entries = members.map((f) => [
      f.alias,
      {
        id: String(f.id),
        label: f.label,
        alias: f.alias,
        type: f.type,
        group: f.group,
        object: "lead",
        is_fixed: f.isFixed ? "1" : "0",
        default_value: f.defaultValue,
        value: c.values[f.alias] ?? null,
        normalizedValue: c.values[f.alias] ?? null,
      },
    ])
    // An empty PHP array is a JSON list.
    return [group, entries.length === 0 ? [] : Object.fromEntries(entries)]
  })
  return {
    isPublished: true,
    ...publishDetails(c),
    id: c.id,
    points: c.points,
    color: null,
    fields: {
      ...Object.fromEntries(groups),
      all: { id: c.id, ...Object.fromEntries(published.map((f) => [f.alias, c.values[f.alias] ?? null])) },
    },
    lastActive: null,
    owner: null,
    ipAddresses: [],
    tags: c.tags.map((tag) => ({ id: state.tagId(tag), tag })),
    utmtags: [],
    stage: null,
    dateIdentified: c.dateIdentified === null ? null : formatDate(c.dateIdentified),
    preferredProfileImage: "gravatar",
    doNotContact: [],
    frequencyRules: [],
  }
}

/** Dates are compared in the database's `Y-m-d H:i:s` form. */
const dbDate = (ms: number | null): string | null => (ms === null ? null : formatDate(ms).slice(0, 19).replace("T", " "))

const COLUMNS: Record<string, (c: ContactRecord) => unknown> = {
  id: (c) => c.id,
  points: (c) => c.points,
  date_added: (c) => dbDate(c.dateAdded),
  date_modified: (c) => dbDate(c.dateModified),
  date_identified: (c) => dbDate(c.dateIdentified),
}

const resolveColumn = (state: MarketingState, name: string): string | undefined => {
  const snake = name.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`)
  if (snake in COLUMNS) return snake
  return fieldByAlias(state, name)?.alias
}

const columnValue = (c: ContactRecord, column: string): unknown => COLUMNS[column]?.(c) ?? c.values[column] ?? null

const startsWith = (value: FieldValue | undefined, prefix: string): boolean =>
  !!value && likePattern(`${prefix}%`).test(value)

const matchesTerm = (c: ContactRecord, { command, value }: SearchTerm): boolean => {
  const v = c.values
  switch (command) {
    case "email":
      return startsWith(v["email"], value)
    case "name":
      return startsWith(v["firstname"], value) || startsWith(v["lastname"], value) ||
        startsWith(`${v["firstname"] ?? ""} ${v["lastname"] ?? ""}`, value)
    case "company":
      return startsWith(v["company"], value)
    case "tag":
      return c.tags.some((t) => t.toLowerCase() === value.toLowerCase())
    case "id":
    case "ids":
      return value.split(",").map(Number).includes(c.id)
    default: {
      const text = command === null ? value : `${command}:${value}`
      return ["firstname", "lastname", "email", "company"].some((alias) => likePattern(`%${text}%`).test(v[alias] ?? ""))
    }
  }
}

const listContacts = (req: ApiRequest): Reply => {
  const { state, query } = req
  const terms = searchTerms(typeof query["search"] === "string" ? query["search"] : "")
  const where = readWhere(query).map((clause) => {
    const column = resolveColumn(state, clause.col)
    if (column === undefined) throw apiError(400, `where: unknown column '${clause.col}'`)
    return { ...clause, col: column }
  })
  const order = readOrder(query, (name) => resolveColumn(state, name), "id")
  const matching = [...state.contacts.values()].filter(
    (c) => terms.every((t) => matchesTerm(c, t)) && where.every((w) => matchesWhere(columnValue(c, w.col), w)),
  )
  const page = pageOf(sortRows(matching, order, columnValue), readWindow(query))
  return {
    status: 200,
    // The service counts with a raw query, so `total` is a string; contacts are keyed by id in list order.
    body: {
      total: String(matching.length),
      contacts: new OrderedObject(page.map((c) => [c.id, contactJson(state, c)])),
    },
  }
}

const contactReply = (req: ApiRequest, contact: ContactRecord, status: number): Reply => ({
  status,
  body: { contact: contactJson(req.state, contact) },
  ...(status === 201 ? { headers: { Location: `${req.baseUrl}/api/contacts/${contact.id}` } } : {}),
})

const postContact = (req: ApiRequest): Reply => {
  const { contact, status } = createOrMergeContact(req.state, req.body, req.principal)
  return contactReply(req, contact, status)
}

const batchNew = (req: ApiRequest): Reply => {
  const limit = req.options.batchMaxLimit
  if (!Array.isArray(req.body) && !asRecord(req.body)) throw apiError(400, "The batch payload must be an array of contacts.")
  const entries = asList(req.body)
  // The service answers an over-long batch with its generic 500 error.
  if (entries.length > limit) throw apiError(500, `A max of ${limit} entities are supported at a time.`)
  const saved: Array<readonly [number, ContactRecord]> = []
  const statusCodes: number[] = []
  const errors: Array<readonly [number, unknown]> = []
  entries.forEach((raw, index) => {
    try {
      const { contact, status } = createOrMergeContact(req.state, raw, req.principal)
      saved.push([index, contact])
      statusCodes.push(status)
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      statusCodes.push(error.status)
      errors.push([index, error.entry])
    }
  })
  // Serialized after the whole batch, so two entries merged into one contact both show its final state.
  // Keyed by entry index: when an entry failed, PHP encodes `contacts` as an object, not a list.
  const contacts = phpArray(saved.map(([index, c]) => [index, contactJson(req.state, c)] as const))
  return {
    status: 201,
    body: { contacts, statusCodes, ...(errors.length > 0 ? { errors: phpArray(errors) } : {}) },
  }
}

const getContact = (req: ApiRequest, { id }: RouteParams): Reply => {
  const contact = req.state.contacts.get(Number(id))
  if (!contact) throw notFound()
  return { status: 200, body: { contact: contactJson(req.state, contact) } }
}

const editContact = (req: ApiRequest, { id }: RouteParams): Reply => {
  const existing = req.state.contacts.get(Number(id))
  const patch = req.method === "PATCH"
  if (patch && !existing) throw notFound()
  const write = readWrite(req.state, req.body, patch)
  if (!existing) {
    // PUT on a missing id creates a contact under a new id (no duplicate check on creation).
    const contact = newContact(req.state, req.principal)
    applyWrite(req.state, contact, write, { replace: true, defaults: true })
    return contactReply(req, contact, 201)
  }
  applyWrite(req.state, existing, write, { replace: !patch, defaults: !patch })
  mergeDuplicate(req.state, existing, write)
  touch(req.state, existing, req.principal)
  return contactReply(req, existing, 200)
}

export const contactRoutes: ApiRoute[] = [
  ["GET", "/contacts", listContacts],
  ["POST", "/contacts/new", postContact],
  ["POST", "/contacts/batch/new", batchNew],
  ["GET", "/contacts/:id", getContact],
  ["PATCH", "/contacts/:id/edit", editContact],
  ["PUT", "/contacts/:id/edit", editContact],
]
