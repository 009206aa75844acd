import { randomBytes } from "node:crypto"
import type { Clock } from "./options.ts"

/** Who an API call acts as: a signed-in user, or the credential itself (client credentials). */
export interface Principal {
  userId: number | null
  name: string
}

interface Grant {
  clientId: string
  principal: Principal
  expiresAt: number
}

interface CodeGrant extends Grant {
  redirectUri: string
}

export interface TokenResponse {
  access_token: string
  expires_in: number
  token_type: "bearer"
  scope: null
  refresh_token?: string
}

export type AccessCheck = { kind: "valid"; principal: Principal } | { kind: "expired" } | { kind: "unknown" }
export type Redeemed = { ok: true; principal: Principal } | { ok: false; message: string }

/** Authorization codes are short-lived (the OAuth server library's default is 30 s). */
const CODE_TTL_MS = 30_000

const newToken = (): string => randomBytes(32).toString("base64url")

export class TokenStore {
  private readonly access = new Map<string, Grant>()
  private readonly refresh = new Map<string, Grant>()
  private readonly codes = new Map<string, CodeGrant>()

  constructor(
    private readonly clock: Clock,
    private readonly accessTtlSeconds: number,
    private readonly refreshTtlSeconds: number,
  ) {}

  issue(clientId: string, principal: Principal, withRefreshToken: boolean): TokenResponse {
    const now = this.clock.now()
    const accessToken = newToken()
    this.access.set(accessToken, { clientId, principal, expiresAt: now + this.accessTtlSeconds * 1000 })
    const response: TokenResponse = {
      access_token: accessToken,
      expires_in: this.accessTtlSeconds,
      token_type: "bearer",
      scope: null,
    }
    if (withRefreshToken) {
      const refreshToken = newToken()
      this.refresh.set(refreshToken, { clientId, principal, expiresAt: now + this.refreshTtlSeconds * 1000 })
      response.refresh_token = refreshToken
    }
    return response
  }

  createCode(clientId: string, redirectUri: string, principal: Principal): string {
    const code = newToken()
    this.codes.set(code, { clientId, redirectUri, principal, expiresAt: this.clock.now() + CODE_TTL_MS })
    return code
  }

  /** Codes are single-use: a redeemed or failed code is gone. */
  redeemCode(code: string, clientId: string, redirectUri: string | undefined): Redeemed {
    const grant = this.codes.get(code)
    if (!grant || grant.clientId !== clientId) return { ok: false, message: "Code doesn't exist or is invalid for the client" }
    this.codes.delete(code)
    if (grant.redirectUri !== redirectUri) return { ok: false, message: "The redirect URI is missing or do not match" }
    if (grant.expiresAt <= this.clock.now()) return { ok: false, message: "The authorization code has expired" }
    return { ok: true, principal: grant.principal }
  }

  /** Rotation: the presented refresh token is invalidated; the caller issues a new pair. */
  redeemRefreshToken(token: string, clientId: string): Redeemed {
    const grant = this.refresh.get(token)
    if (!grant || grant.clientId !== clientId) return { ok: false, message: "Invalid refresh token" }
    this.refresh.delete(token)
    if (grant.expiresAt <= this.clock.now()) return { ok: false, message: "Refresh token has expired" }
    return { ok: true, principal: grant.principal }
  }

  check(token: string): AccessCheck {
    const grant = this.access.get(token)
    if (!grant) return { kind: "unknown" }
    if (grant.expiresAt <= this.clock.now()) return { kind: "expired" }
    return { kind: "valid", principal: grant.principal }
  }

  revokeAll(): void {
    this.access.clear()
    this.refresh.clear()
    this.codes.clear()
  }

  get activeAccessTokens(): number {
    const now = this.clock.now()
    return [...this.access.values()].filter((g) => g.expiresAt > now).length
  }
}
