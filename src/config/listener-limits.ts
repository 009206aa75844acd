/**
 * The limits of the HTTP listeners of `serve` and `worker`. Their clients are the store (a delivery of a few KiB,
 * sent at once, a handful at a time) and monitoring: a request that takes longer than this, or a crowd of
 * connections, is not one of them. Without the limits, unsigned connections could hold memory before any signature
 * is checked; the admin listener keeps the timeouts and the connection cap (it reads no bodies).
 */

/** Every request header must have arrived by then (Node's `headersTimeout`; its default is a minute). */
export const LISTENER_HEADERS_TIMEOUT_MS = 5_000

/** The whole request, body included, must have arrived by then (Node's `requestTimeout`; its default is 5 minutes). */
export const LISTENER_REQUEST_TIMEOUT_MS = 10_000

/** How often Node checks the two timeouts above (its default, 30 s, would let a request live 40 s). */
export const LISTENER_TIMEOUT_CHECK_MS = 1_000

/** Connections open at once; Node closes any further one as soon as it is accepted. */
export const LISTENER_MAX_CONNECTIONS = 256

/**
 * Body bytes buffered at once, across all requests, before their signatures are checked. A request that would go
 * past it is answered 503 with Retry-After (the store sends it again) instead of growing the process's memory.
 */
export const LISTENER_BODY_BUDGET_BYTES = 16 * 1024 * 1024

/** The Retry-After (seconds) of that 503: slow requests are gone by then (the request timeout). */
export const LISTENER_BUSY_RETRY_AFTER_S = Math.ceil(LISTENER_REQUEST_TIMEOUT_MS / 1000)
