export type QueryParams = Readonly<Record<string, string | number | boolean | undefined>>

/** The API root plus the path, with the parameters that are set. */
export const requestUrl = (apiUrl: string, path: string, params: QueryParams = {}): string => {
  const url = new URL(apiUrl + path)
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, String(v))
  return url.toString()
}

/** Never show credentials, even if someone put them in STORE_API_URL. */
export const safeUrl = (url: string): string => {
  const u = new URL(url)
  u.username = ""
  u.password = ""
  for (const key of ["consumer_key", "consumer_secret"]) if (u.searchParams.has(key)) u.searchParams.set(key, "***")
  return u.toString()
}
