import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Option } from "effect"
import type { Answer } from "../http-client/send.js"
import { type AuthRefusal, type KeySource, StoreAuthFailed } from "./errors.js"
import { urlName } from "./key-source.js"

/** How one request carries the key. */
export type Credentials = "basic" | "oauth1" | "query"

/** How the request as sent carried the key (undefined: it carried none). */
export const carriedBy = (request: HttpClientRequest.HttpClientRequest): Credentials | undefined => {
  if (/^Basic\s/i.test(request.headers["authorization"] ?? "")) return "basic"
  const params = Option.match(HttpClientRequest.toUrl(request), { onNone: () => new URLSearchParams(), onSome: (u) => u.searchParams })
  return params.has("oauth_signature") ? "oauth1" : params.has("consumer_key") ? "query" : undefined
}

/** The error fields of WordPress's JSON error shape, when the body has it. */
export const errorFields = (body: unknown): { code: string | undefined; message: string | undefined } => {
  if (body && typeof body === "object" && !Array.isArray(body)) {
    const b = body as Record<string, unknown>
    return {
      code: typeof b.code === "string" ? b.code : undefined,
      message: typeof b.message === "string" ? b.message : undefined
    }
  }
  return { code: undefined, message: undefined }
}

const isMissingCredentials = (code: string | undefined, message: string | undefined) =>
  code === "rest_not_logged_in" || (code === "woocommerce_rest_authentication_error" && /\bmissing\b/i.test(message ?? ""))

const isCannotView = (code: string | undefined) => code !== undefined && /^woocommerce_rest_cannot_(view|list)$/.test(code)

/**
 * How a 401/403 is read. WooCommerce answers 401 woocommerce_rest_authentication_error to a key, secret or signature
 * it checked and found wrong; 401 woocommerce_rest_cannot_view (or …_cannot_list) both when it saw no credentials at
 * all (Basic over plain HTTP, or a host that dropped the Authorization header) and, on many stores, when the key's
 * user lacks the capability; 403 only for the latter. The rule for that 401: a permission refusal when the key
 * verifiably reached the store, that is it travelled in the query string (OAuth 1.0a, STORE_AUTH=query), which hosts
 * do not strip, or as Basic after the store already accepted Basic from this process on a route that needs a key
 * (`basicRead`); otherwise the store saw no credentials. "Missing credentials" answers (rest_not_logged_in,
 * "Consumer key is missing.") mean no credentials too.
 */
export const refusalOf = (answer: Answer, basicRead: boolean): AuthRefusal => {
  const { code, message } = errorFields(answer.body)
  if (answer.status === 403) return "permission"
  if (isMissingCredentials(code, message)) return "no-credentials"
  if (!isCannotView(code)) return "rejected"
  const carried = carriedBy(answer.request)
  return carried === "oauth1" || carried === "query" || (carried === "basic" && basicRead) ? "permission" : "no-credentials"
}

const hintFor = (refusal: AuthRefusal, carried: Credentials | undefined, plainHttp: boolean, source: KeySource | undefined): string | undefined => {
  if (refusal === "permission") return "create the key for a shop manager or an administrator (Read access is enough)"
  if (refusal === "rejected") {
    return carried === "oauth1"
      ? "the request carried an OAuth 1.0a signature (STORE_AUTH=oauth1, or auto over plain HTTP); the store also refuses it when its clock is more than 15 minutes behind"
      : undefined
  }
  if (plainHttp) {
    return `WooCommerce reads HTTP Basic only over HTTPS: use the store's https:// address in ${urlName(source)}, ` +
      "or STORE_AUTH=auto or oauth1 to sign requests with OAuth 1.0a"
  }
  return carried === "basic"
    ? "the host drops the Authorization header (common with PHP run as CGI or FastCGI): set STORE_AUTH=query to send " +
      "the key as query parameters (HTTPS only), or have the host pass the header on"
    : undefined
}

/** The StoreAuthFailed a 401/403 answer means; `shown` is the URL errors may name. */
export const authFailure = (answer: Answer, shown: string, basicRead: boolean, plainHttp: boolean, source?: KeySource): StoreAuthFailed => {
  const { code, message } = errorFields(answer.body)
  const reason = refusalOf(answer, basicRead)
  const hint = hintFor(reason, carriedBy(answer.request), plainHttp, source)
  return new StoreAuthFailed({ url: shown, status: answer.status, code, storeMessage: message, reason, hint, source })
}
