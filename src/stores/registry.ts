import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Data, Effect, Option, Redacted, Schema } from "effect"
import { type KeyProblem, SecretBox } from "./secret-box.js"

/** A registered store as `stores list` shows it: everything but its keys. */
export const StoreListing = Schema.Struct({
  storeId: Schema.String,
  apiUrl: Schema.String,
  enabled: Schema.Boolean,
  /** The sync interval in milliseconds. */
  everyMs: Schema.Number,
  hasWebhookSecret: Schema.Boolean,
  marketingUrl: Schema.NullOr(Schema.String),
  /** Timestamps as ISO 8601 in UTC. */
  createdAt: Schema.String,
  updatedAt: Schema.String,
  lastSuccessAt: Schema.NullOr(Schema.String),
  lastError: Schema.NullOr(Schema.String),
  lastErrorAt: Schema.NullOr(Schema.String),
  runner: Schema.NullOr(Schema.String)
})
export type StoreListing = typeof StoreListing.Type

/** A marketing service a store's contacts go to. */
export interface StoreMarketing {
  readonly url: string
  readonly clientId: Redacted.Redacted<string>
  readonly clientSecret: Redacted.Redacted<string>
}

/** A registered store with its secrets opened: what a sync of it needs. */
export interface RegisteredStore extends StoreListing {
  readonly consumerKey: Redacted.Redacted<string>
  readonly consumerSecret: Redacted.Redacted<string>
  readonly webhookSecret: Option.Option<Redacted.Redacted<string>>
  readonly marketing: Option.Option<StoreMarketing>
}

/** What `stores add` registers. */
export interface NewStore {
  readonly storeId: string
  readonly apiUrl: string
  readonly consumerKey: string
  readonly consumerSecret: Redacted.Redacted<string>
  readonly everyMs: number
  readonly webhookSecret: Option.Option<Redacted.Redacted<string>>
  readonly marketing: Option.Option<StoreMarketing>
}

/** What `stores set` changes: each None keeps the registered value. */
export interface StoreChanges {
  readonly apiUrl: Option.Option<string>
  readonly consumerKey: Option.Option<string>
  readonly consumerSecret: Option.Option<Redacted.Redacted<string>>
  readonly everyMs: Option.Option<number>
  readonly webhookSecret: Option.Option<Redacted.Redacted<string>>
  readonly marketing: Option.Option<StoreMarketing>
}

export class StoreNotRegistered extends Data.TaggedError("StoreNotRegistered")<{ readonly storeId: string }> {
  override get message() {
    return `store ${this.storeId} is not registered; \`shopsync stores list\` shows the registered stores`
  }
}

export class StoreAlreadyRegistered extends Data.TaggedError("StoreAlreadyRegistered")<{ readonly storeId: string }> {
  override get message() {
    return `store ${this.storeId} is already registered; \`shopsync stores set ${this.storeId}\` changes its URL, keys, ` +
      "secrets or interval (--url, --key, --secret-env, --every…; see `shopsync stores set --help`)"
  }
}

const Sealed = Schema.Struct({
  consumerKey: Schema.String,
  consumerSecret: Schema.Uint8ArrayFromSelf,
  webhookSecret: Schema.NullOr(Schema.Uint8ArrayFromSelf),
  marketingClientId: Schema.NullOr(Schema.String),
  marketingClientSecret: Schema.NullOr(Schema.Uint8ArrayFromSelf)
})

const Found = Schema.Struct({ found: Schema.Boolean })

/** A row's sealed values by column, as a rotation reads and rewrites them. */
const SealedRow = Schema.Struct({
  store_id: Schema.String,
  consumer_secret: Schema.Uint8ArrayFromSelf,
  webhook_secret: Schema.NullOr(Schema.Uint8ArrayFromSelf),
  marketing_client_secret: Schema.NullOr(Schema.Uint8ArrayFromSelf)
})
const SEALED_COLUMNS = ["consumer_secret", "webhook_secret", "marketing_client_secret"] as const

/** What a key rotation did. */
export interface Rotation {
  readonly stores: number
  /** Sealed values in the registry. */
  readonly secrets: number
  /** Of those, the ones the retiring key had sealed, now sealed under the master key. */
  readonly resealed: number
}

const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

/** The columns of a StoreListing. */
const LISTED = `store_id AS "storeId", api_url AS "apiUrl", enabled, (extract(epoch FROM every) * 1000)::float8 AS "everyMs",
  webhook_secret IS NOT NULL AS "hasWebhookSecret", marketing_url AS "marketingUrl", ${iso("created_at")} AS "createdAt",
  ${iso("updated_at")} AS "updatedAt", ${iso("last_success_at")} AS "lastSuccessAt", last_error AS "lastError",
  ${iso("last_error_at")} AS "lastErrorAt", runner`

/** The columns of Sealed. */
const SEALED = `consumer_key AS "consumerKey", consumer_secret AS "consumerSecret", webhook_secret AS "webhookSecret",
  marketing_client_id AS "marketingClientId", marketing_client_secret AS "marketingClientSecret"`

/**
 * The registry of stores (sync.store_registry, migration 014); secrets are sealed and opened by SecretBox (the master
 * key is read when first needed).
 */
export class StoreRegistry extends Effect.Service<StoreRegistry>()("shopsync/StoreRegistry", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const box = yield* SecretBox
    const listed = sql.unsafe(`SELECT ${LISTED} FROM sync.store_registry`)
    const list = SqlSchema.findAll({ Request: Schema.Void, Result: StoreListing, execute: () => sql`${listed} ORDER BY store_id` })(undefined)
    const one = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.extend(StoreListing, Sealed),
      execute: (id) => sql`SELECT ${sql.unsafe(LISTED)}, ${sql.unsafe(SEALED)} FROM sync.store_registry WHERE store_id = ${id}`
    })
    /** Whether a statement's RETURNING gave a row: false means no such store. */
    const touched = (storeId: string, statement: Effect.Effect<ReadonlyArray<unknown>, SqlError>) =>
      Effect.flatMap(statement, (rows) => rows.length > 0 ? Effect.void : Effect.fail(new StoreNotRegistered({ storeId })))

    const open = (storeId: string, field: string, value: Uint8Array) => box.open({ storeId, field }, value)
    const openOption = (storeId: string, field: string, value: Uint8Array | null) =>
      value === null ? Effect.succeed(Option.none()) : Effect.map(open(storeId, field, value), Option.some)

    const add = (store: NewStore) =>
      Effect.gen(function*() {
        const place = (field: string) => ({ storeId: store.storeId, field })
        const consumerSecret = yield* box.seal(place("consumer_secret"), store.consumerSecret)
        const webhookSecret = Option.isSome(store.webhookSecret) ? yield* box.seal(place("webhook_secret"), store.webhookSecret.value) : null
        const m = Option.getOrUndefined(store.marketing)
        const marketingSecret = m === undefined ? null : yield* box.seal(place("marketing_client_secret"), m.clientSecret)
        const inserted = yield* SqlSchema.findAll({ Request: Schema.Void, Result: Found, execute: () =>
          sql`INSERT INTO sync.store_registry (store_id, api_url, consumer_key, consumer_secret, every, webhook_secret,
                marketing_url, marketing_client_id, marketing_client_secret)
              VALUES (${store.storeId}, ${store.apiUrl}, ${store.consumerKey}, ${consumerSecret},
                make_interval(secs => ${store.everyMs / 1000}), ${webhookSecret}, ${m?.url ?? null},
                ${m === undefined ? null : Redacted.value(m.clientId)}, ${marketingSecret})
              ON CONFLICT (store_id) DO NOTHING RETURNING true AS found` })(undefined)
        if (inserted.length === 0) return yield* new StoreAlreadyRegistered({ storeId: store.storeId })
      })

    const update = (storeId: string, c: StoreChanges) =>
      Effect.gen(function*() {
        const seal = (field: string, secret: Option.Option<Redacted.Redacted<string>>) =>
          Option.match(secret, { onNone: () => Effect.succeed(null), onSome: (value) => box.seal({ storeId, field }, value) })
        const consumerSecret = yield* seal("consumer_secret", c.consumerSecret)
        const webhookSecret = yield* seal("webhook_secret", c.webhookSecret)
        const m = Option.getOrUndefined(c.marketing)
        const marketingSecret = yield* seal("marketing_client_secret", Option.map(c.marketing, (x) => x.clientSecret))
        const seconds = Option.getOrNull(Option.map(c.everyMs, (ms) => ms / 1000))
        yield* touched(storeId, sql`UPDATE sync.store_registry SET
            api_url = COALESCE(${Option.getOrNull(c.apiUrl)}, api_url),
            consumer_key = COALESCE(${Option.getOrNull(c.consumerKey)}, consumer_key),
            consumer_secret = COALESCE(${consumerSecret}, consumer_secret),
            every = COALESCE(make_interval(secs => ${seconds}::float8), every),
            webhook_secret = COALESCE(${webhookSecret}, webhook_secret),
            marketing_url = COALESCE(${m?.url ?? null}, marketing_url),
            marketing_client_id = COALESCE(${m === undefined ? null : Redacted.value(m.clientId)}, marketing_client_id),
            marketing_client_secret = COALESCE(${marketingSecret}, marketing_client_secret),
            updated_at = now()
          WHERE store_id = ${storeId} RETURNING store_id`)
      })

    const get = (storeId: string) =>
      Effect.gen(function*() {
        const found = yield* one(storeId)
        if (Option.isNone(found)) return yield* new StoreNotRegistered({ storeId })
        const { consumerKey, consumerSecret, webhookSecret, marketingClientId, marketingClientSecret, ...shown } = found.value
        const clientSecret = yield* openOption(storeId, "marketing_client_secret", marketingClientSecret)
        const marketing = Option.all({ url: Option.fromNullable(shown.marketingUrl), clientId: Option.fromNullable(marketingClientId), clientSecret })
        return {
          ...shown,
          consumerKey: Redacted.make(consumerKey),
          consumerSecret: yield* open(storeId, "consumer_secret", consumerSecret),
          webhookSecret: yield* openOption(storeId, "webhook_secret", webhookSecret),
          marketing: Option.map(marketing, (x) => ({ ...x, clientId: Redacted.make(x.clientId) }))
        } satisfies RegisteredStore
      }).pipe(Effect.catchTag("ParseError", Effect.die))

    const hookSecrets = SqlSchema.findAll({
      Request: Schema.Void,
      Result: Schema.Struct({ storeId: Schema.String, webhookSecret: Schema.NullOr(Schema.Uint8ArrayFromSelf) }),
      execute: () => sql`SELECT store_id AS "storeId", webhook_secret AS "webhookSecret" FROM sync.store_registry`
    })
    const webhookSecrets = Effect.gen(function*() {
      const rows = yield* hookSecrets(undefined)
      const opened = yield* Effect.forEach(rows, (row) => Effect.either(openOption(row.storeId, "webhook_secret", row.webhookSecret)))
      return new Map(rows.map((row, i) => [row.storeId, opened[i]!]))
    }).pipe(Effect.catchTag("ParseError", Effect.die))

    const rotateRow = (row: typeof SealedRow.Type) =>
      Effect.gen(function*() {
        let secrets = 0
        let resealed = 0
        for (const column of SEALED_COLUMNS) {
          const value = row[column]
          if (value === null) continue
          secrets++
          const fresh = yield* box.reseal({ storeId: row.store_id, field: column }, value)
          if (Option.isNone(fresh)) continue
          resealed++
          yield* sql`UPDATE sync.store_registry SET ${sql(column)} = ${fresh.value}, updated_at = now() WHERE store_id = ${row.store_id}`
        }
        return { secrets, resealed }
      })

    const rotate = sql.withTransaction(Effect.gen(function*() {
      const rows = yield* SqlSchema.findAll({ Request: Schema.Void, Result: SealedRow, execute: () =>
        sql`SELECT store_id, ${sql.unsafe(SEALED_COLUMNS.join(", "))} FROM sync.store_registry ORDER BY store_id FOR UPDATE` })(undefined)
      let secrets = 0
      let resealed = 0
      for (const row of rows) {
        const done = yield* rotateRow(row)
        secrets += done.secrets
        resealed += done.resealed
      }
      return { stores: rows.length, secrets, resealed } satisfies Rotation
    })).pipe(Effect.catchTag("ParseError", Effect.die))

    return {
      /** Registers a store, its secrets sealed under the master key. */
      add: (store: NewStore): Effect.Effect<void, StoreAlreadyRegistered | KeyProblem | SqlError> =>
        add(store).pipe(Effect.catchTag("ParseError", Effect.die)),
      /** Every registered store, by store id, without secrets (needs no master key). */
      list: list.pipe(Effect.catchTag("ParseError", Effect.die)),
      /** One store with its secrets opened: a wrong master key fails here, before anything is sent to the store. */
      get,
      /**
       * Every registered store's webhook secret, opened (None: registered without one; a Left: this one could not be
       * opened), read in one query so that the webhook intake knows the whole registry, unknown ids included.
       */
      webhookSecrets,
      /** Deletes the registry row only: the store's warehouse rows stay. */
      remove: (storeId: string): Effect.Effect<void, StoreNotRegistered | SqlError> =>
        touched(storeId, sql`DELETE FROM sync.store_registry WHERE store_id = ${storeId} RETURNING store_id`),
      /** Changes what `changes` names, secrets sealed anew; the schedule takes a new interval at its next tick. */
      update,
      /** Pause (false) or resume (true) the store's scheduled syncs. */
      setEnabled: (storeId: string, enabled: boolean): Effect.Effect<void, StoreNotRegistered | SqlError> =>
        touched(storeId, sql`UPDATE sync.store_registry SET enabled = ${enabled}, updated_at = now() WHERE store_id = ${storeId} RETURNING store_id`),
      /**
       * Reseals every secret the retiring key (SHOPSYNC_PREVIOUS_MASTER_KEY) sealed under the master key, in one
       * transaction: a value no key of the ring opens fails it whole, leaving every row as it was.
       */
      rotate,
      /** A sync or backfill of the store succeeded; `runner` ran it (None: a command on its own). */
      recordSuccess: (storeId: string, runner: Option.Option<string>): Effect.Effect<void, SqlError> =>
        sql`UPDATE sync.store_registry SET last_success_at = now(), last_error = NULL, last_error_at = NULL,
              runner = ${Option.getOrNull(runner)} WHERE store_id = ${storeId}`.pipe(Effect.asVoid),
      /** A sync or backfill of the store failed with `error` (one line, no secret). */
      recordFailure: (storeId: string, error: string, runner: Option.Option<string>): Effect.Effect<void, SqlError> =>
        sql`UPDATE sync.store_registry SET last_error = ${error}, last_error_at = now(), runner = ${Option.getOrNull(runner)}
            WHERE store_id = ${storeId}`.pipe(Effect.asVoid)
    }
  }),
  dependencies: [SecretBox.Default]
}) {}
