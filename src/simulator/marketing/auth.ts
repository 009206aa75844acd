// Who is calling the API: an OAuth bearer token (header, form body or query string) or, when an
// administrator enabled it, HTTP Basic with a user's name and password.
import type { IncomingHttpHeaders } from "node:http"
import { readBasicAuth, sameSecret } from "../http/basic-auth.ts"
import { oauthError } from "./errors.ts"
import type { MarketingUser, ResolvedOptions } from "./options.ts"
import type { MarketingState } from "./state.ts"
import type { Principal } from "./tokens.ts"

export interface Credentials {
  method: string
  headers: IncomingHttpHeaders
  /** `access_token` of the query string, if any. */
  queryToken: string | undefined
  /** `access_token` of a form-encoded body, if any. */
  bodyToken: string | undefined
}

/** Checks a user's password; user ids are positions in `options.users`, from 1. */
export const signIn = (
  options: ResolvedOptions,
  accepted: MarketingUser[],
  username: string,
  password: string,
): Principal | undefined => {
  if (!accepted.some((u) => u.username === username && sameSecret(password, u.password))) return undefined
  const index = options.users.findIndex((u) => u.username === username)
  return { userId: index < 0 ? null : index + 1, name: username }
}

export const authenticate = (creds: Credentials, state: MarketingState, options: ResolvedOptions): Principal => {
  const authorization = creds.headers.authorization
  const basic = readBasicAuth(authorization)
  // With Basic disabled (the default) a Basic header is not a credential at all.
  if (basic && options.basicAuthUsers) {
    const principal = signIn(options, options.basicAuthUsers, basic.user, basic.password)
    if (!principal) {
      throw oauthError(401, "access_denied", "Invalid credentials.", { "WWW-Authenticate": 'Basic realm="Mautic"' })
    }
    return principal
  }

  const headerToken = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1]
  const presented = [headerToken, creds.queryToken, creds.bodyToken].filter((t) => t !== undefined)
  if (presented.length > 1) {
    throw oauthError(400, "invalid_request", "Only one method may be used to authenticate at a time (Auth header, GET or POST).")
  }
  if (creds.bodyToken !== undefined && creds.method !== "POST") {
    throw oauthError(400, "invalid_request", "When putting the token in the body, the method must be POST.")
  }
  const token = presented[0]
  if (token === undefined) throw oauthError(401, "access_denied", "API authorization denied.")

  const check = state.tokens.check(token)
  if (check.kind === "valid") return check.principal
  const message = check.kind === "expired" ? "The access token provided has expired." : "The access token provided is invalid."
  throw oauthError(401, "invalid_grant", message, {
    "WWW-Authenticate": `Bearer realm="Service", error="invalid_grant", error_description="${message}"`,
  })
}
