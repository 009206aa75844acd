import type { MarketingFaultRule } from "./faults.ts"

export interface MarketingClient {
  clientId: string
  clientSecret: string
  redirectUris?: string[]
  /** The credential name that client-credentials actions are recorded under; defaults to clientId. */
  name?: string
}

export interface MarketingUser {
  username: string
  password: string
}

export interface Clock {
  now(): number
}

export interface MarketingSimulatorOptions {
  host?: string
  port?: number
  clients?: MarketingClient[]
  /** Accounts for the sign-in step of the authorization-code flow and for HTTP Basic. */
  users?: MarketingUser[]
  /** HTTP Basic on the API: off by default (seed §5.1). `true` accepts `users`; an object accepts only it. */
  basicAuth?: boolean | MarketingUser
  accessTokenTtlSeconds?: number
  refreshTokenTtlSeconds?: number
  batchMaxLimit?: number
  /** The seed's list answer is a map keyed by id; the real service answers an array. */
  hooksListShape?: "map" | "array"
  clock?: Clock
  faults?: MarketingFaultRule[]
  /** Seed of the generator behind fault probabilities, so a run can be replayed. */
  faultSeed?: number
  /** The real service's hourly API rate limit (off when absent). */
  rateLimitPerHour?: number
  /** An administrator can switch the API off: every /api request then answers 403. */
  apiEnabled?: boolean
}

export interface ResolvedOptions {
  host: string
  port: number
  clients: Array<Required<MarketingClient>>
  users: MarketingUser[]
  /** Credentials HTTP Basic accepts, or null when Basic is disabled. */
  basicAuthUsers: MarketingUser[] | null
  accessTokenTtlSeconds: number
  refreshTokenTtlSeconds: number
  batchMaxLimit: number
  hooksListShape: "map" | "array"
  clock: Clock
  faults: MarketingFaultRule[]
  faultSeed: number
  rateLimitPerHour: number | null
  apiEnabled: boolean
}

const DAY_SECONDS = 24 * 60 * 60

export const resolveOptions = (options: MarketingSimulatorOptions = {}): ResolvedOptions => {
  const users = options.users ?? [{ username: "admin", password: "admin" }]
  const clients = options.clients ?? [
    { clientId: "mk_demo", clientSecret: "mk_secret", redirectUris: ["http://127.0.0.1/callback"] },
  ]
  return {
    host: options.host ?? "127.0.0.1",
    port: options.port ?? 0,
    clients: clients.map((c) => ({ ...c, redirectUris: c.redirectUris ?? [], name: c.name ?? c.clientId })),
    users,
    basicAuthUsers:
      options.basicAuth === true ? users : typeof options.basicAuth === "object" ? [options.basicAuth] : null,
    accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 3600,
    refreshTokenTtlSeconds: options.refreshTokenTtlSeconds ?? 14 * DAY_SECONDS,
    batchMaxLimit: options.batchMaxLimit ?? 200,
    hooksListShape: options.hooksListShape ?? "map",
    clock: options.clock ?? { now: () => Date.now() },
    faults: options.faults ?? [],
    faultSeed: options.faultSeed ?? 1,
    rateLimitPerHour: options.rateLimitPerHour ?? null,
    apiEnabled: options.apiEnabled ?? true,
  }
}
