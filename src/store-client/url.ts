export type QueryParams = Readonly<Record<string, string | number | boolean | undefined>>

/** The API root plus the path, with the parameters that are set. */
export const requestUrl = (apiUrl: string, path: string, params: QueryParams = {}): string => {
  const url = new URL(apiUrl + path)
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, String(v))
  return url.toString()
}

/**
 * Never show credentials, even if someone put them in STORE_API_URL. OAuth 1.0a parameters (a redirect's Location
 * echoes the signed request) are dropped: the key and a per-request signature say nothing about the failure.
 */
export const safeUrl = (url: string): string => {
  const u = new URL(url)
  u.username = ""
  u.password = ""
  for (const key of ["consumer_key", "consumer_secret"]) if (u.searchParams.has(key)) u.searchParams.set(key, "***")
  for (const key of [...u.searchParams.keys()]) if (key.startsWith("oauth_")) u.searchParams.delete(key)
  return u.toString()
}
