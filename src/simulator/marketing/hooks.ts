// The webhook resource of the seed: every endpoint, the PUT/PATCH rules and every list parameter.
import { randomBytes } from "node:crypto"
import type { Reply } from "../http/reply.ts"
import type { Params as RouteParams } from "../http/router.ts"
import type { ApiRequest, ApiRoute } from "./api.ts"
import { apiError, notFound, validationError, type FieldErrors } from "./errors.ts"
import { likePattern, pageOf, readOrder, readWindow, searchTerms, sortRows, type SearchTerm } from "./list-query.ts"
import { asList, asRecord, isTruthy, readFlag } from "./php-params.ts"
import type { HookRecord, MarketingState } from "./state.ts"
import type { Principal } from "./tokens.ts"
import { TRIGGERS } from "./triggers.ts"
import { OrderedObject, publishDetails } from "./wire-format.ts"

/** Supplied fields only: undefined = not in the request, null (or "" for the secret) = cleared. */
type HookInput = Partial<
  Pick<HookRecord, "name" | "description" | "webhookUrl" | "secret" | "eventsOrderbyDir" | "isPublished" | "categoryId" | "triggers">
>

const INVALID = "This value is not valid."

const text = (value: unknown): string | null => (value === null || value === undefined || value === "" ? null : String(value).trim())

const readHookInput = (state: MarketingState, raw: unknown, creating: boolean): HookInput => {
  const body = asRecord(raw)
  if (!body) throw apiError(400, "A webhook must be an object of fields.")
  const input: HookInput = {}
  const errors: FieldErrors = {}
  const has = (key: string): boolean => key in body

  if (has("name")) input.name = text(body["name"])
  if (has("description")) input.description = text(body["description"])
  if (has("secret")) input.secret = text(body["secret"]) ?? ""
  if (has("webhookUrl")) {
    input.webhookUrl = text(body["webhookUrl"])
    if (input.webhookUrl !== null && !/^https?:\/\/[^\s/]+/i.test(input.webhookUrl)) {
      errors["webhookUrl"] = ["This value is not a valid URL."]
    }
  }
  if (has("eventsOrderbyDir")) {
    const dir = text(body["eventsOrderbyDir"])?.toLowerCase() ?? null
    if (dir === null || dir === "asc" || dir === "desc") input.eventsOrderbyDir = dir
    else errors["eventsOrderbyDir"] = [INVALID]
  }
  if (has("isPublished")) {
    const flag = readFlag(body["isPublished"])
    if (flag === undefined) errors["isPublished"] = [INVALID]
    else input.isPublished = flag
  }
  if (has("category")) {
    // On write a category is the integer id of an existing category.
    const id = text(body["category"])
    if (id === null) input.categoryId = null
    else if (/^\d+$/.test(id) && state.categories.has(Number(id))) input.categoryId = Number(id)
    else errors["category"] = [`Category ${id} does not exist`]
  }
  if (has("triggers")) {
    const triggers = asList(body["triggers"])
    if (triggers.every((t) => typeof t === "string" && t !== "")) input.triggers = [...new Set(triggers as string[])]
    else errors["triggers"] = [INVALID]
  }
  if (creating) {
    if (!input.name) errors["name"] = ["A name is required."]
    if (!input.webhookUrl) errors["webhookUrl"] ??= ["A value is required."]
    if (!input.triggers?.length) errors["triggers"] ??= ["At least one trigger is required."]
  }
  if (Object.keys(errors).length > 0) throw validationError(errors)
  return input
}

const blankHook = (id: number, state: MarketingState, actor: Principal): HookRecord => ({
  id,
  name: null,
  description: null,
  webhookUrl: null,
  secret: "",
  eventsOrderbyDir: null,
  isPublished: true,
  categoryId: null,
  triggers: [],
  dateAdded: state.now(),
  dateModified: null,
  createdBy: actor,
  modifiedBy: null,
})

/** Applies the supplied fields; like the service, a hook saved without a secret gets a generated one. */
const applyInput = (hook: HookRecord, input: HookInput): void => {
  Object.assign(hook, Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)))
  if (hook.secret === "") hook.secret = randomBytes(24).toString("base64")
}

const hookJson = (state: MarketingState, h: HookRecord, minimal = false): Record<string, unknown> => {
  const category = h.categoryId === null ? undefined : state.categories.get(h.categoryId)
  return {
    isPublished: h.isPublished,
    ...publishDetails(h),
    id: h.id,
    name: h.name,
    description: h.description,
    webhookUrl: h.webhookUrl,
    secret: h.secret,
    eventsOrderbyDir: h.eventsOrderbyDir,
    // `minimal` answers simple objects without the nested category and trigger list.
    ...(minimal
      ? {}
      : {
          category: category
            ? { createdByUser: null, modifiedByUser: null, ...category }
            : null,
          triggers: [...h.triggers],
        }),
  }
}

const hookReply = (req: ApiRequest, hook: HookRecord, status: number): Reply => ({
  status,
  body: { hook: hookJson(req.state, hook) },
  ...(status === 201 ? { headers: { Location: `${req.baseUrl}/api/hooks/${hook.id}` } } : {}),
})

const getHook = (req: ApiRequest, { id }: RouteParams): Reply => {
  const hook = req.state.hooks.get(Number(id))
  if (!hook) throw notFound()
  return hookReply(req, hook, 200)
}

const createHook = (req: ApiRequest): Reply => {
  const input = readHookInput(req.state, req.body, true)
  const hook = blankHook(req.state.nextId("hook"), req.state, req.principal)
  applyInput(hook, input)
  req.state.hooks.set(hook.id, hook)
  return hookReply(req, hook, 201)
}

/**
 * PUT replaces: every field goes back to its default before the supplied ones are applied, and a
 * missing id creates a webhook (201) under the next id, as the database assigns it. PATCH changes
 * only the supplied fields and answers 404 for a missing id.
 */
const editHook = (req: ApiRequest, { id }: RouteParams): Reply => {
  const existing = req.state.hooks.get(Number(id))
  if (!existing && req.method === "PATCH") throw notFound()
  const input = readHookInput(req.state, req.body, false)
  if (!existing) {
    const hook = blankHook(req.state.nextId("hook"), req.state, req.principal)
    applyInput(hook, input)
    req.state.hooks.set(hook.id, hook)
    return hookReply(req, hook, 201)
  }
  if (req.method === "PUT") {
    Object.assign(existing, { ...blankHook(existing.id, req.state, existing.createdBy), dateAdded: existing.dateAdded })
  }
  applyInput(existing, input)
  existing.dateModified = req.state.now()
  existing.modifiedBy = req.principal
  return hookReply(req, existing, 200)
}

const deleteHook = (req: ApiRequest, { id }: RouteParams): Reply => {
  const hook = req.state.hooks.get(Number(id))
  if (!hook) throw notFound()
  req.state.hooks.delete(hook.id)
  return hookReply(req, hook, 200)
}

const triggers = (): Reply => ({
  status: 200,
  body: { triggers: new OrderedObject(TRIGGERS.map(([type, label, description]) => [type, { label, description }])) },
})

const SORTABLE = new Set([
  "id", "name", "description", "webhookUrl", "secret", "eventsOrderbyDir", "isPublished", "dateAdded",
  "dateModified", "createdBy", "createdByUser", "modifiedBy", "modifiedByUser", "category",
])

/** orderBy names a response column in snake_case (date_added); the camelCase name is accepted too. */
const resolveColumn = (name: string): string | undefined => {
  const camel = name.replace(/_([a-z])/g, (_, ch: string) => ch.toUpperCase())
  return SORTABLE.has(camel) ? camel : undefined
}

const columnValue = (state: MarketingState, h: HookRecord, column: string): unknown => {
  switch (column) {
    case "createdBy": return h.createdBy.userId
    case "createdByUser": return h.createdBy.name
    case "modifiedBy": return h.modifiedBy?.userId ?? null
    case "modifiedByUser": return h.modifiedBy?.name ?? null
    case "category": return h.categoryId === null ? null : state.categories.get(h.categoryId)?.title ?? null
    default: return h[column as keyof HookRecord]
  }
}

/** searchFilter: `is:published`, `is:unpublished`, `ids:1,2`, `category:<alias>`, `name:<prefix>`, or text. */
const matchesTerm = (state: MarketingState, h: HookRecord, { command, value }: SearchTerm): boolean => {
  switch (command) {
    case "is":
      if (value === "published") return h.isPublished
      if (value === "unpublished") return !h.isPublished
      return false
    case "id":
    case "ids":
      return value.split(",").map(Number).includes(h.id)
    case "category":
      return h.categoryId !== null && state.categories.get(h.categoryId)?.alias === value
    case "name":
      return likePattern(`${value}%`).test(h.name ?? "")
    default: {
      const pattern = likePattern(`%${command === null ? value : `${command}:${value}`}%`)
      return pattern.test(h.name ?? "") || pattern.test(h.description ?? "")
    }
  }
}

const listHooks = (req: ApiRequest): Reply => {
  const { state, query } = req
  const search = query["searchFilter"] ?? query["search"]
  const terms = searchTerms(typeof search === "string" ? search : "")
  // The seed names it publishedOnly; the service reads `published`.
  const publishedOnly = isTruthy(query["publishedOnly"] ?? query["published"])
  const minimal = isTruthy(query["minimal"])
  const order = readOrder(query, resolveColumn, "id")
  const matching = [...state.hooks.values()].filter(
    (h) => (!publishedOnly || h.isPublished) && terms.every((t) => matchesTerm(state, h, t)),
  )
  const page = pageOf(sortRows(matching, order, (h, column) => columnValue(state, h, column)), readWindow(query))
  const hooks =
    req.options.hooksListShape === "array"
      ? page.map((h) => hookJson(state, h, minimal))
      : new OrderedObject(page.map((h) => [h.id, hookJson(state, h, minimal)]))
  return { status: 200, body: { total: matching.length, hooks } }
}

export const hookRoutes: ApiRoute[] = [
  ["GET", "/hooks", listHooks],
  ["GET", "/hooks/triggers", triggers],
  ["GET", "/hooks/:id", getHook],
  ["POST", "/hooks/new", createHook],
  ["PUT", "/hooks/:id/edit", editHook],
  ["PATCH", "/hooks/:id/edit", editHook],
  ["DELETE", "/hooks/:id/delete", deleteHook],
]
