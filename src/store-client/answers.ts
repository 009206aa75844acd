import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Clock, Effect, Option } from "effect"
import { isTransientStatus, retryAfterMs } from "../http-client/retry-after.js"
import type { Answer, TransportFailed } from "../http-client/send.js"
import { UnusableAnswer } from "../http-client/send.js"
import { tlsProblem } from "../http-client/tls.js"
import { authFailure, errorFields } from "./auth-answer.js"
import {
  type KeySource,
  type StoreAuthFailed,
  type StoreError,
  StoreNotApi,
  StoreRedirected,
  StoreRequestFailed,
  StoreTlsFailed,
  StoreUnreachable
} from "./errors.js"
import { safeUrl } from "./url.js"

/** What one attempt can end with, before the retries are over. */
export type AttemptFailure = TransportFailed | UnusableAnswer | StoreAuthFailed | StoreNotApi | StoreRedirected

/** What the process knows when it judges an answer. */
export interface Judging {
  readonly apiUrl: string
  /** The URL errors may name (credentials masked). */
  readonly shown: string
  readonly plainHttp: boolean
  /** The store has accepted Basic from this process (see auth-answer.ts). */
  readonly basicRead: boolean
  /** The store has answered with JSON before: a later web page is a hiccup, not a wrong address. */
  readonly jsonSeen: boolean
  /** Where the address and key were given (absent: the STORE_* variables), for the messages' fix. */
  readonly source?: KeySource | undefined
}

const isOk = (status: number) => status >= 200 && status < 300

const isHtml = (answer: Answer) =>
  /text\/html/i.test(answer.headers["content-type"] ?? "") || /^\s*(\uFEFF\s*)?<(!doctype|html)/i.test(answer.text)

/** The API root a redirect points to: the Location less the path asked for below the root. */
const rootBehind = (answer: Answer, apiUrl: string, location: URL): string | undefined => {
  const asked = Option.getOrUndefined(HttpClientRequest.toUrl(answer.request))
  if (!asked) return undefined
  const below = asked.pathname.slice(new URL(apiUrl).pathname.length)
  if (!location.pathname.endsWith(below)) return undefined
  return `${location.origin}${location.pathname.slice(0, location.pathname.length - below.length)}`.replace(/\/$/, "")
}

const redirected = (answer: Answer, judging: Judging): StoreRedirected => {
  const header = answer.headers["location"]
  const location = header && URL.canParse(header, judging.apiUrl) ? new URL(header, judging.apiUrl) : undefined
  return new StoreRedirected({
    url: judging.shown,
    status: answer.status,
    location: location && safeUrl(location.toString()),
    suggestion: location && rootBehind(answer, judging.apiUrl, location),
    source: judging.source
  })
}

const notApi = (answer: Answer, judging: Judging): StoreNotApi =>
  new StoreNotApi({
    url: judging.shown,
    status: answer.status,
    title: /<title[^>]*>([^<]*)<\/title>/i.exec(answer.text)?.[1]?.trim() || undefined,
    suggestion: `${new URL(judging.apiUrl).origin}/wp-json/wc/v3`,
    source: judging.source
  })

/** A 2xx answer with a JSON body: what nearly every request gets, used as it is. */
export const isUsable = (answer: Answer) => isOk(answer.status) && answer.body !== undefined

/**
 * A JSON answer with a 2xx status. 401/403 and redirects end at once, and so does a web page before any JSON
 * (the address is the site's); anything else may be worth another attempt.
 */
export const judge = (answer: Answer, judging: Judging): Effect.Effect<Answer, AttemptFailure> =>
  Effect.gen(function*() {
    if (answer.status === 401 || answer.status === 403) {
      return yield* authFailure(answer, judging.shown, judging.basicRead, judging.plainHttp, judging.source)
    }
    if (answer.status >= 300 && answer.status < 400) return yield* redirected(answer, judging)
    if (isUsable(answer)) return answer
    if (isOk(answer.status) && !judging.jsonSeen && isHtml(answer)) return yield* notApi(answer, judging)
    const now = yield* Clock.currentTimeMillis
    return yield* new UnusableAnswer({ answer, serverWaitMs: retryAfterMs(answer.headers, now) })
  })

/** The error the caller gets once the retries are over; `apiUrl`: the API root as shown, for the address to use. */
export const giveUp = (e: AttemptFailure, attempts: number, shown: string, method = "GET", source?: KeySource, apiUrl?: string): StoreError => {
  switch (e._tag) {
    case "TransportFailed": {
      const problem = tlsProblem(e.reason)
      return problem
        ? new StoreTlsFailed({ url: shown, code: e.reason, problem, source, apiUrl })
        : new StoreUnreachable({ method, url: shown, reason: e.reason, attempts, source })
    }
    case "UnusableAnswer": {
      const { status, body, text } = e.answer
      const { code, message } = errorFields(body)
      const said = message ??
        (isOk(status) ? "the body is not JSON" : text.slice(0, 200).replace(/\s+/g, " ").trim() || undefined)
      return new StoreRequestFailed({ method, url: shown, status, code, storeMessage: said, attempts, source })
    }
    default:
      return e
  }
}

/** Dropped connections, 408/429/5xx and a 2xx that was not JSON (a proxy's hiccup) are retried; a TLS failure (or TLS port) is not. */
export const isTransient = (e: AttemptFailure) =>
  (e._tag === "TransportFailed" && tlsProblem(e.reason) === undefined) ||
  (e._tag === "UnusableAnswer" && (isOk(e.answer.status) || isTransientStatus(e.answer.status)))
