// HTTP Basic credentials (RFC 7617).
import { timingSafeEqual } from "node:crypto"

export interface Credentials {
  user: string
  password: string
}

export const readBasicAuth = (header: string | undefined): Credentials | undefined => {
  const m = header === undefined ? null : /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header)
  if (m === null) return undefined
  const decoded = Buffer.from(m[1]!, "base64").toString("utf8")
  const colon = decoded.indexOf(":")
  if (colon < 0) return undefined
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}

/** Constant-time comparison so a simulator never teaches clients to rely on timing. */
export const sameSecret = (given: string, expected: string): boolean => {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}
