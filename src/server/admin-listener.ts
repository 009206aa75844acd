/**
 * The admin listener of `serve` and `worker` (SHOPSYNC_ADMIN_HOST:SHOPSYNC_ADMIN_PORT, loopback by default): the
 * status pages, /metrics and /healthz with its reasons, apart from the webhook listener that the stores (and so the
 * internet) reach. Off loopback it asks for a bearer token, as Prometheus sends one (`authorization.credentials_file`).
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { createHash, timingSafeEqual } from "node:crypto"
import { Data, Effect, Layer, Option, Redacted } from "effect"
import { readSecretFile } from "../config/secret-file.js"
import { ADMIN_TOKEN_MIN_LENGTH, type AdminSettings } from "../config/settings.js"
import { limitedServerLayer } from "./listener.js"

/** SHOPSYNC_ADMIN_TOKEN_FILE names a file that cannot be read or holds no token long enough. */
export class AdminTokenFileInvalid extends Data.TaggedError("AdminTokenFileInvalid")<{ readonly file: string; readonly problem: string }> {
  override get message() {
    return `SHOPSYNC_ADMIN_TOKEN_FILE ${this.file}: ${this.problem}`
  }
}

const readTokenFile = (file: string) =>
  Effect.gen(function*() {
    const text = yield* readSecretFile("SHOPSYNC_ADMIN_TOKEN_FILE", file, "whoever reads it sees every store's sales on the status page",
      (problem) => new AdminTokenFileInvalid({ file, problem }))
    // Trimmed as Prometheus trims its credentials_file, so one file can serve both.
    const token = text.trim()
    if (token.length < ADMIN_TOKEN_MIN_LENGTH) {
      return yield* new AdminTokenFileInvalid({ file, problem: `must hold a token of at least ${ADMIN_TOKEN_MIN_LENGTH} characters (generate one with \`openssl rand -hex 32\`)` })
    }
    return Redacted.make(token)
  })

/** The token the admin listener asks for (trimmed): SHOPSYNC_ADMIN_TOKEN, else the file SHOPSYNC_ADMIN_TOKEN_FILE names; None when neither is set. */
export const loadAdminToken = (admin: AdminSettings): Effect.Effect<Option.Option<Redacted.Redacted<string>>, AdminTokenFileInvalid> =>
  Option.isSome(admin.token)
    ? Effect.succeed(Option.some(Redacted.make(Redacted.value(admin.token.value).trim())))
    : Option.match(admin.tokenFile, { onNone: () => Effect.succeedNone, onSome: (file) => Effect.asSome(readTokenFile(file)) })

// Digests first: timingSafeEqual needs equal lengths, and comparing them leaks nothing of the token's length.
const digest = (text: string) => createHash("sha256").update(text).digest()

const unauthorized = HttpServerResponse.unsafeJson(
  { error: "this listener needs Authorization: Bearer <SHOPSYNC_ADMIN_TOKEN>" },
  { status: 401, headers: { "www-authenticate": "Bearer realm=\"shopsync admin\"", "cache-control": "no-store" } }
)

/** `app` for requests whose `Authorization: Bearer` carries `token`, 401 for the others; `app` itself without a token. */
export const requireToken = (token: Option.Option<Redacted.Redacted<string>>) => <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) => {
  if (Option.isNone(token)) return app
  const expected = digest(Redacted.value(token.value))
  return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const given = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(request.headers["authorization"] ?? "")?.[1]
    return given !== undefined && timingSafeEqual(digest(given), expected) ? app : Effect.succeed(unauthorized)
  })
}

/**
 * Serves `app` on the admin listener, behind the token when there is one, until the scope closes; logs where, and
 * whether a token is asked for. A port already taken fails the command.
 */
export const serveAdmin = <E, R>(admin: AdminSettings, token: Option.Option<Redacted.Redacted<string>>, app: HttpApp.Default<E, R>, routes: string) =>
  Effect.gen(function*() {
    const server = yield* Layer.build(limitedServerLayer({ host: admin.host, port: admin.port }))
    yield* HttpServer.serveEffect(requireToken(token)(app)).pipe(Effect.provide(server))
    yield* Effect.logInfo(
      `admin listener on http://${admin.host}:${admin.port} (SHOPSYNC_ADMIN_HOST:SHOPSYNC_ADMIN_PORT): ${routes}; ` +
        (Option.isSome(token) ? "each request needs Authorization: Bearer <SHOPSYNC_ADMIN_TOKEN>" : "no token asked for (loopback only)")
    )
  })
