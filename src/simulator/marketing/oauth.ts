// OAuth 2.0 under /oauth/v2: the authorization-code flow with a minimal sign-in page, and the token
// endpoint for the authorization_code, refresh_token and client_credentials grants.
import type { IncomingHttpHeaders } from "node:http"
import { readBasicAuth, sameSecret } from "../http/basic-auth.ts"
import type { Reply } from "../http/reply.ts"
import { Router } from "../http/router.ts"
import { signIn } from "./auth.ts"
import { oauthError } from "./errors.ts"
import type { MarketingClient, ResolvedOptions } from "./options.ts"
import type { MarketingState } from "./state.ts"

export interface OAuthRequest {
  query: URLSearchParams
  /** The form-encoded body; empty for any other content type. */
  form: URLSearchParams
  headers: IncomingHttpHeaders
  state: MarketingState
  options: ResolvedOptions
}

interface AuthorizeParams {
  client: Required<MarketingClient>
  redirectUri: string
  responseType: string
  state: string | null
}

/** Errors that make the redirect URI untrustworthy are answered directly, never by redirecting. */
const authorizeParams = (params: URLSearchParams, options: ResolvedOptions): AuthorizeParams => {
  const client = options.clients.find((c) => c.clientId === params.get("client_id"))
  if (!client) throw oauthError(400, "invalid_client", "The client credentials are invalid")
  const redirectUri = params.get("redirect_uri")
  if (!redirectUri) throw oauthError(400, "invalid_request", "No redirect URL was supplied or stored.")
  if (!client.redirectUris.includes(redirectUri)) {
    throw oauthError(400, "redirect_uri_mismatch", "The redirect URI provided does not match registered URI(s).")
  }
  return { client, redirectUri, responseType: params.get("response_type") ?? "", state: params.get("state") }
}

const redirect = (target: string, params: Record<string, string | null>): Reply => {
  const url = new URL(target)
  for (const [key, value] of Object.entries(params)) if (value !== null) url.searchParams.set(key, value)
  return { status: 302, text: "", headers: { Location: url.toString() } }
}

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)

const signInPage = (p: AuthorizeParams, error?: string): Reply => {
  const hidden = { client_id: p.client.clientId, redirect_uri: p.redirectUri, response_type: p.responseType, state: p.state }
  const inputs = Object.entries(hidden)
    .filter(([, v]) => v !== null)
    .map(([k, v]) => `<input type="hidden" name="${k}" value="${escapeHtml(v!)}">`)
    .join("")
  return {
    status: 200,
    contentType: "text/html; charset=UTF-8",
    text:
      `<!doctype html><html><head><title>Sign in</title></head><body>` +
      (error ? `<p class="error">${escapeHtml(error)}</p>` : "") +
      `<form method="post" action="/oauth/v2/authorize">${inputs}` +
      `<label>Username <input name="username"></label><label>Password <input type="password" name="password"></label>` +
      `<button type="submit">Accept</button></form></body></html>`,
  }
}

/** Once the redirect URI is known good, other errors travel back to it. */
const unsupportedResponseType = (params: AuthorizeParams): Reply =>
  redirect(params.redirectUri, {
    error: "unsupported_response_type",
    error_description: "Invalid response type.",
    state: params.state,
  })

/** Step 1: the sign-in form. */
const authorizeForm = ({ query, options }: OAuthRequest): Reply => {
  const params = authorizeParams(query, options)
  return params.responseType === "code" ? signInPage(params) : unsupportedResponseType(params)
}

/** Step 2: the signed-in user is sent back to redirect_uri with a code and the unchanged state. */
const authorizeSubmit = ({ form, options, state }: OAuthRequest): Reply => {
  const params = authorizeParams(form, options)
  if (params.responseType !== "code") return unsupportedResponseType(params)
  const principal = signIn(options, options.users, form.get("username") ?? "", form.get("password") ?? "")
  if (!principal) return signInPage(params, "Invalid credentials.")
  const code = state.tokens.createCode(params.client.clientId, params.redirectUri, principal)
  return redirect(params.redirectUri, { code, state: params.state })
}

/** Client id and secret come as HTTP Basic or as form fields. */
const authenticateClient = ({ headers, form, options }: OAuthRequest): Required<MarketingClient> => {
  const basic = readBasicAuth(headers.authorization)
  const clientId = basic?.user ?? form.get("client_id")
  const secret = basic?.password ?? form.get("client_secret")
  if (!clientId) throw oauthError(400, "invalid_client", "Client id was not found in the headers or body")
  const client = options.clients.find((c) => c.clientId === clientId && sameSecret(secret ?? "", c.clientSecret))
  if (!client) throw oauthError(400, "invalid_client", "The client credentials are invalid")
  return client
}

const tokenReply = (body: object): Reply => ({
  status: 200,
  body,
  headers: { "Cache-Control": "no-store", Pragma: "no-cache" },
})

const token = (req: OAuthRequest): Reply => {
  const grantType = req.form.get("grant_type")
  req.state.recordTokenRequest(grantType ?? "")
  if (!grantType) throw oauthError(400, "invalid_request", "Invalid grant_type parameter or parameter missing")
  const client = authenticateClient(req)
  const { tokens } = req.state
  switch (grantType) {
    case "authorization_code": {
      const code = req.form.get("code")
      if (!code) throw oauthError(400, "invalid_request", 'Missing parameter. "code" is required')
      const redeemed = tokens.redeemCode(code, client.clientId, req.form.get("redirect_uri") ?? undefined)
      if (!redeemed.ok) throw oauthError(400, "invalid_grant", redeemed.message)
      return tokenReply(tokens.issue(client.clientId, redeemed.principal, true))
    }
    case "refresh_token": {
      const refreshToken = req.form.get("refresh_token")
      if (!refreshToken) throw oauthError(400, "invalid_request", 'No "refresh_token" parameter found')
      // A 400 here tells the client to send the user through the authorization flow again.
      const redeemed = tokens.redeemRefreshToken(refreshToken, client.clientId)
      if (!redeemed.ok) throw oauthError(400, "invalid_grant", redeemed.message)
      return tokenReply(tokens.issue(client.clientId, redeemed.principal, true))
    }
    case "client_credentials":
      // Machine-to-machine: actions are recorded under the credential name, and no refresh token.
      return tokenReply(tokens.issue(client.clientId, { userId: null, name: client.name }, false))
    default:
      throw oauthError(400, "unsupported_grant_type", "Invalid grant_type parameter or parameter missing")
  }
}

/** Paths relative to /oauth/v2. */
export const oauthRouter = new Router<(req: OAuthRequest) => Reply>()
  .add("GET", "/authorize", authorizeForm)
  .add("POST", "/authorize", authorizeSubmit)
  .add("POST", "/token", token)
