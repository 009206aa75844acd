import { Effect, Either, type Schema } from "effect"
import type { Answer } from "../http-client/send.js"
import { StoreDocumentInvalid, StoreRequestFailed } from "./errors.js"
import { documentDecoder } from "../schema-check/document.js"

/** One page of a list endpoint, with the paging headers the sync relies on. */
export interface Page<A = unknown> {
  readonly items: ReadonlyArray<A>
  readonly total: number
  readonly totalPages: number
  /** The store's clock (HTTP Date header): upper bounds are frozen against it, not ours. */
  readonly serverTime: Date | undefined
  /** The body as received (the items' JSON array): staged as is, it need not be serialized again. */
  readonly json: string
}

const numberHeader = (answer: Answer, name: string) => {
  const n = Number(answer.headers[name])
  return Number.isFinite(n) ? n : undefined
}

const dateHeader = (answer: Answer) => {
  const date = answer.headers["date"] ? new Date(answer.headers["date"]) : undefined
  return date && !Number.isNaN(date.getTime()) ? date : undefined
}

/** The page a list endpoint answered; `shown` is the URL errors may name. */
export const toPage = (answer: Answer, shown: string): Effect.Effect<Page, StoreRequestFailed> => {
  if (!Array.isArray(answer.body)) {
    return Effect.fail(new StoreRequestFailed({
      method: "GET", url: shown, status: answer.status, code: undefined,
      storeMessage: "expected a JSON array from a list endpoint", attempts: 1
    }))
  }
  const items = answer.body as ReadonlyArray<unknown>
  return Effect.succeed({
    items,
    total: numberHeader(answer, "x-wp-total") ?? items.length,
    totalPages: numberHeader(answer, "x-wp-totalpages") ?? 1,
    serverTime: dateHeader(answer),
    json: answer.text
  })
}

/** Every document decoded with `schema`, or the first that does not fit, named with the URL path it came from. */
export const decodeDocuments = <A>(schema: Schema.Schema<A>, path: string) => {
  const decode = documentDecoder(schema)
  return (docs: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<A>, StoreDocumentInvalid> => {
    const decoded: A[] = []
    for (const doc of docs) {
      const result = decode(doc)
      if (Either.isLeft(result)) return Effect.fail(new StoreDocumentInvalid({ url: path, detail: result.left }))
      decoded.push(result.right)
    }
    return Effect.succeed(decoded)
  }
}
