import { Context, Effect, Either, Layer, Ref, type Schema } from "effect"
import type { MarketingSettings } from "../config/settings.js"
import { type CallOptions, MarketingApi, MarketingApiLive, type Method } from "./api.js"
import { isTransient, type MarketingError, MarketingResponseInvalid, MarketingSetupInvalid } from "./errors.js"
import { marketingRetryPolicy, marketingSchedule, type RetryPolicy } from "./http.js"
import { BatchAnswer, decode, FieldAnswer, FieldList, type Hook, HookAnswer, HookList, TriggerList } from "./schemas.js"
import { TokenService, TokenServiceLive } from "./token.js"

/** A custom contact field the service should have (the caller says which: contacts/contact-fields.ts). */
export interface CustomField {
  readonly alias: string
  readonly label: string
  readonly type: "number" | "date" | "text"
}

/** What the service did with one entry of a batch. */
export interface EntryResult {
  /** 201 created, 200 updated (merged by email), 4xx refused. */
  readonly status: number
  readonly contactId: number | undefined
  /** The service's message for a refused entry. */
  readonly error: string | undefined
}

export interface HookInput {
  readonly name?: string
  readonly webhookUrl?: string
  readonly triggers?: ReadonlyArray<string>
  readonly isPublished?: boolean
}

export class MarketingClient extends Context.Tag("shopsync/MarketingClient")<MarketingClient, {
  readonly batchSize: number
  readonly concurrency: number
  /** One POST /api/contacts/batch/new (at most batchSize entries), answered entry by entry in request order. */
  readonly upsertContacts: (contacts: ReadonlyArray<Readonly<Record<string, unknown>>>) => Effect.Effect<ReadonlyArray<EntryResult>, MarketingError>
  /** Creates the fields that do not exist yet; looks only once per process once they all exist. */
  readonly ensureFields: (fields: ReadonlyArray<CustomField>) => Effect.Effect<ReadonlyArray<string>, MarketingError>
  readonly listHooks: Effect.Effect<ReadonlyArray<Hook>, MarketingError>
  readonly triggers: Effect.Effect<ReadonlyArray<string>, MarketingError>
  /** Not repeated blindly on a lost answer (a second webhook would appear): callers re-list and try again. */
  readonly createHook: (input: HookInput) => Effect.Effect<Hook, MarketingError>
  readonly patchHook: (id: number, input: HookInput) => Effect.Effect<Hook, MarketingError>
  readonly deleteHook: (id: number) => Effect.Effect<void, MarketingError>
  readonly requestCount: Effect.Effect<number>
  readonly tokenRequestCount: Effect.Effect<number>
  readonly policy: RetryPolicy
}>() {}

/** Pages of list endpoints: the service pages everything (30 rows by default). */
const PAGE = 100

/**
 * Repeats a look-then-create operation on transient failures: each try looks again first, so a creation
 * whose answer was lost is found instead of being made twice.
 */
export const retryWhole = <A, R>(policy: RetryPolicy, label: string, operation: Effect.Effect<A, MarketingError, R>) =>
  Effect.retry(operation, marketingSchedule(policy, label, isTransient))

type Api = Context.Tag.Service<typeof MarketingApi>

/** One call whose 2xx answer is decoded with `schema`. */
const fetchDecoded = <A, I>(api: Api, schema: Schema.Schema<A, I>, method: Method, path: string, options?: CallOptions) =>
  Effect.flatMap(api.call(method, path, options), (answer) => {
    const decoded = decode(schema, answer.body)
    return Either.isRight(decoded)
      ? Effect.succeed(decoded.right)
      : Effect.fail(new MarketingResponseInvalid({ url: `${api.baseUrl}/api${path}`, detail: decoded.left }))
  })

/** The batch answer entry by entry, in request order. */
const entryResults = (count: number, batch: typeof BatchAnswer.Type): ReadonlyArray<EntryResult> => {
  const statuses = new Map(batch.statusCodes)
  const ids = new Map(batch.contacts.map(([i, c]) => [i, c.id]))
  const errors = new Map(batch.errors.map(([i, e]) => [i, e.message]))
  return Array.from({ length: count }, (_, index): EntryResult => {
    const key = String(index)
    return {
      // An entry the answer does not mention is treated as not done (a 5xx of its own): it stays pending.
      status: statuses.get(key) ?? 500,
      contactId: ids.get(key),
      error: errors.get(key) ?? (statuses.has(key) ? undefined : "the batch answer did not mention this entry")
    }
  })
}

const upsertContacts = (api: Api, batchSize: number) => (contacts: ReadonlyArray<Readonly<Record<string, unknown>>>) =>
  Effect.gen(function*() {
    if (contacts.length === 0) return []
    if (contacts.length > batchSize) {
      return yield* new MarketingSetupInvalid({ detail: `a batch of ${contacts.length} contacts exceeds MARKETING_BATCH_SIZE (${batchSize})` })
    }
    return entryResults(contacts.length, yield* fetchDecoded(api, BatchAnswer, "POST", "/contacts/batch/new", { json: contacts }))
  })

/** Every row of a paged list endpoint, `items` picking the rows out of one decoded page. */
const listAll = <P extends { readonly total: number }, I, A>(
  api: Api,
  path: string,
  schema: Schema.Schema<P, I>,
  items: (page: P) => ReadonlyArray<A>
) =>
  Effect.gen(function*() {
    const all: A[] = []
    for (;;) {
      const query = { start: all.length, limit: PAGE, orderBy: "id", orderByDir: "asc" }
      const page = yield* fetchDecoded(api, schema, "GET", path, { query })
      const rows = items(page)
      all.push(...rows)
      if (rows.length === 0 || all.length >= page.total) return all
    }
  })

const createField = (api: Api, field: CustomField) =>
  Effect.gen(function*() {
    const json = { label: field.label, alias: field.alias, type: field.type, group: "core", isPublished: true }
    const made = (yield* fetchDecoded(api, FieldAnswer, "POST", "/fields/contact/new", { json, idempotent: false })).field
    // The service renames a taken alias (shop_x → shop_x1) instead of refusing it.
    if (made.alias !== field.alias) {
      return yield* new MarketingSetupInvalid({
        detail: `the marketing service created contact field "${field.label}" as ${made.alias} instead of ${field.alias}; ` +
          `remove field ${made.alias} (id ${made.id}) and check why ${field.alias} is unavailable`
      })
    }
    yield* Effect.logInfo(`marketing: created contact field ${field.alias} (${field.type})`)
  })

/** Creates the wanted fields that do not exist; warns about those that exist with another type. */
const createMissingFields = (api: Api, wanted: ReadonlyArray<CustomField>) =>
  Effect.gen(function*() {
    const fields = yield* listAll(api, "/fields/contact", FieldList, (p) => p.fields.map(([, f]) => f))
    const existing = new Map(fields.map((f) => [f.alias, f]))
    const created: string[] = []
    for (const field of wanted) {
      const found = existing.get(field.alias)
      if (found && found.type !== field.type) {
        yield* Effect.logWarning(`marketing: contact field ${field.alias} exists with type ${found.type}, shopsync writes ${field.type}; its values may be refused`)
      }
      if (found) continue
      yield* createField(api, field)
      created.push(field.alias)
    }
    return created
  })

const hookBody = (input: HookInput) => Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined))

const hookPath = (id: number, action: string) => `/hooks/${id}/${action}`

const hookOperations = (api: Api) => ({
  listHooks: listAll(api, "/hooks", HookList, (p) => p.hooks.map(([, h]) => h)),
  triggers: Effect.map(fetchDecoded(api, TriggerList, "GET", "/hooks/triggers"), (t) => Object.keys(t.triggers)),
  createHook: (input: HookInput) =>
    Effect.map(fetchDecoded(api, HookAnswer, "POST", "/hooks/new", { json: hookBody(input), idempotent: false }), (a) => a.hook),
  patchHook: (id: number, input: HookInput) =>
    Effect.map(fetchDecoded(api, HookAnswer, "PATCH", hookPath(id, "edit"), { json: hookBody(input) }), (a) => a.hook),
  deleteHook: (id: number) =>
    api.call("DELETE", hookPath(id, "delete")).pipe(
      // Already gone (a retry after a lost answer, or someone else): the goal is met.
      Effect.catchIf((e) => e._tag === "MarketingRequestFailed" && e.status === 404, () => Effect.void),
      Effect.asVoid
    )
})

export const makeMarketingClient = (settings: MarketingSettings, policy: RetryPolicy) =>
  Effect.gen(function*() {
    const api = yield* MarketingApi
    const tokens = yield* TokenService
    const fieldsReady = yield* Ref.make(false)

    const ensureFields = (wanted: ReadonlyArray<CustomField>) =>
      Effect.gen(function*() {
        if (yield* Ref.get(fieldsReady)) return []
        const created = yield* retryWhole(policy, "contact fields", createMissingFields(api, wanted))
        yield* Ref.set(fieldsReady, true)
        return created
      })

    return MarketingClient.of({
      batchSize: settings.batchSize,
      concurrency: settings.concurrency,
      upsertContacts: upsertContacts(api, settings.batchSize),
      ensureFields,
      ...hookOperations(api),
      requestCount: api.requestCount,
      tokenRequestCount: tokens.requestCount,
      policy
    })
  })

/** The token service, the API and the client over an HttpClient (the entry point provides undici). */
export const MarketingLive = (settings: MarketingSettings, policy: RetryPolicy = marketingRetryPolicy(settings)) =>
  Layer.effect(MarketingClient, makeMarketingClient(settings, policy)).pipe(
    Layer.provideMerge(MarketingApiLive(settings, policy)),
    Layer.provideMerge(TokenServiceLive(settings, policy))
  )

