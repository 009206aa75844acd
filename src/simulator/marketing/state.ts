// Everything the simulated service stores, plus read-only views for tests. Records hold plain data;
// the resource modules (contacts.ts, fields.ts, hooks.ts) own the rules that change them.
import { createOrMergeContact, findByEmail } from "./contacts.ts"
import { defaultContactFields } from "./fields.ts"
import type { Clock } from "./options.ts"
import { type Principal, TokenStore } from "./tokens.ts"

export type FieldValue = string | null

export interface ContactRecord {
  id: number
  dateAdded: number
  /** Null until the first edit, as the service only stamps modifications of existing rows. */
  dateModified: number | null
  dateIdentified: number | null
  createdBy: Principal
  modifiedBy: Principal | null
  points: number
  /** Field alias → value. Values are strings as the service reads them back from its database. */
  values: Record<string, FieldValue>
  tags: string[]
}

export interface FieldDefinition {
  id: number
  label: string
  alias: string
  type: string
  group: string
  order: number
  defaultValue: string | null
  isRequired: boolean
  isPublished: boolean
  isFixed: boolean
  isUniqueIdentifier: boolean
  isPubliclyUpdatable: boolean
  properties: Record<string, unknown>
  dateAdded: number | null
  createdBy: Principal | null
}

export interface Category {
  id: number
  title: string
  alias: string
  description: string | null
  color: string | null
  bundle: string
}

export interface HookRecord {
  id: number
  name: string | null
  description: string | null
  webhookUrl: string | null
  secret: string
  eventsOrderbyDir: "asc" | "desc" | null
  isPublished: boolean
  categoryId: number | null
  triggers: string[]
  dateAdded: number
  dateModified: number | null
  createdBy: Principal
  modifiedBy: Principal | null
}

type Sequence = "contact" | "field" | "hook" | "category" | "tag"

/** What state changes made directly by a test are recorded under. */
const SIMULATOR: Principal = { userId: null, name: "simulator" }

export class MarketingState {
  readonly tokens: TokenStore
  readonly contacts = new Map<number, ContactRecord>()
  readonly fields: FieldDefinition[] = defaultContactFields()
  readonly hooks = new Map<number, HookRecord>()
  readonly categories = new Map<number, Category>()
  private readonly tagIds = new Map<string, number>()
  private readonly lastIds: Record<Sequence, number> = {
    contact: 0,
    field: this.fields.length,
    hook: 0,
    category: 0,
    tag: 0,
  }
  private readonly tokenRequestsByGrant = new Map<string, number>()

  constructor(
    readonly clock: Clock,
    accessTokenTtlSeconds: number,
    refreshTokenTtlSeconds: number,
  ) {
    this.tokens = new TokenStore(clock, accessTokenTtlSeconds, refreshTokenTtlSeconds)
  }

  now(): number {
    return this.clock.now()
  }

  /** Auto-increment ids: like the database, an id is never reused. */
  nextId(sequence: Sequence): number {
    return ++this.lastIds[sequence]
  }

  tagId(tag: string): number {
    let id = this.tagIds.get(tag)
    if (id === undefined) {
      id = this.nextId("tag")
      this.tagIds.set(tag, id)
    }
    return id
  }

  recordTokenRequest(grantType: string): void {
    this.tokenRequestsByGrant.set(grantType, (this.tokenRequestsByGrant.get(grantType) ?? 0) + 1)
  }

  /** Requests to the token endpoint, whatever their outcome. */
  get tokenRequests(): number {
    return [...this.tokenRequestsByGrant.values()].reduce((a, b) => a + b, 0)
  }

  tokenRequestsFor(grantType: string): number {
    return this.tokenRequestsByGrant.get(grantType) ?? 0
  }

  // ---- views for tests: copies, so a test cannot change the service behind its back ----

  listContacts(): ContactRecord[] {
    return [...this.contacts.values()].map((c) => structuredClone(c))
  }

  getContact(id: number): ContactRecord | undefined {
    const contact = this.contacts.get(id)
    return contact && structuredClone(contact)
  }

  /** Case-insensitive, like the service's email lookups. */
  findContactByEmail(email: string): ContactRecord | undefined {
    const contact = findByEmail(this, email.trim())
    return contact && structuredClone(contact)
  }

  /** Seeds a contact as POST /api/contacts/new would (merging by email); throws on invalid values. */
  addContact(values: Record<string, string | number | boolean | null>, tags: string[] = []): ContactRecord {
    return structuredClone(createOrMergeContact(this, { ...values, tags }, SIMULATOR).contact)
  }

  listFields(): FieldDefinition[] {
    return this.fields.map((f) => structuredClone(f))
  }

  listHooks(): HookRecord[] {
    return [...this.hooks.values()].map((h) => structuredClone(h))
  }

  getHook(id: number): HookRecord | undefined {
    const hook = this.hooks.get(id)
    return hook && structuredClone(hook)
  }

  /** Categories have no endpoint here; tests create them to assign to webhooks. */
  addCategory(input: { title: string; alias?: string; description?: string; color?: string }): Category {
    const category: Category = {
      id: this.nextId("category"),
      title: input.title,
      alias: input.alias ?? input.title.toLowerCase().replace(/[^a-z0-9]+/g, "-"),
      description: input.description ?? null,
      color: input.color ?? null,
      bundle: "global",
    }
    this.categories.set(category.id, category)
    return structuredClone(category)
  }
}
