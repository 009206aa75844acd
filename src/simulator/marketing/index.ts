// A simulator of the marketing-automation service (Mautic's API): OAuth 2.0 and optional Basic
// auth, contacts, contact fields and webhooks, with switchable faults. Plain node:http on loopback.
import type { MarketingFaultRule } from "./faults.ts"
import { resolveOptions, type MarketingSimulatorOptions } from "./options.ts"
import { startServer } from "./server.ts"
import type { MarketingState } from "./state.ts"

export { parseMarketingFaultSpec } from "./faults.ts"
export type { MarketingFaultKind, MarketingFaultRule } from "./faults.ts"
export type { Clock, MarketingClient, MarketingSimulatorOptions, MarketingUser } from "./options.ts"
export type { Category, ContactRecord, FieldDefinition, HookRecord, MarketingState } from "./state.ts"
export type { Principal } from "./tokens.ts"

export interface RequestRecord {
  method: string
  /** Path and query as sent, so a test can inspect what a client put in URLs. */
  url: string
  /** 0 when the connection was dropped by a fault. */
  status: number
  /** The request carried `access_token` in its query string (accepted, but URLs end up in logs). */
  hadTokenInUrl: boolean
  /** The User-Agent header as sent. */
  userAgent: string | undefined
}

export interface MarketingSimulator {
  /** e.g. http://127.0.0.1:PORT; the API is under /api, OAuth under /oauth/v2. */
  readonly baseUrl: string
  readonly state: MarketingState
  readonly requests: ReadonlyArray<RequestRecord>
  /** Replaces the fault rules; their counters and random sequence start afresh. */
  setFaults(rules: MarketingFaultRule[]): void
  /** Every access token, refresh token and authorization code stops working now. */
  revokeAllTokens(): void
  close(): Promise<void>
}

export const startMarketingSimulator = (options?: MarketingSimulatorOptions): Promise<MarketingSimulator> =>
  startServer(resolveOptions(options))
