// Helpers shared by the resource renderers: how dates, links and `_fields` look on the wire.
import type { SiteTime } from "../dates.ts"
import { formatSeconds } from "../dates.ts"

export type Json = Record<string, unknown>

export interface RenderContext {
  /** Absolute API root, e.g. http://127.0.0.1:PORT/wp-json/wc/v3 */
  apiUrl: string
  /** Decimal places of money fields (`dp`). */
  dp: number
  site: SiteTime
  /** WordPress's `context`: fields whose schema context lacks it are left out. */
  context: "view" | "edit"
}

/** Fields a resource's schema shows in the edit context only (spread them where they belong in the object). */
export const editOnly = (r: RenderContext, fields: Json): Json => (r.context === "edit" ? fields : {})

/** The `x` / `x_gmt` pair of a date (null for "never"). */
export const datePair = (r: RenderContext, utc: number): { local: string | null; gmt: string | null } =>
  utc > 0 ? { local: r.site.local(utc), gmt: formatSeconds(utc) } : { local: null, gmt: null }

export const links = (r: RenderContext, entries: Record<string, string>): Json =>
  Object.fromEntries(Object.entries(entries).map(([rel, path]) => [rel, [{ href: `${r.apiUrl}${path}` }]]))

/** The `x` / `x_gmt` fields of a date, ready to spread into a resource. */
export const dateFields = (r: RenderContext, name: string, utc: number): Json => {
  const { local, gmt } = datePair(r, utc)
  return { [name]: local, [`${name}_gmt`]: gmt }
}

/**
 * WordPress's `_fields`: keep only the named top-level fields (a dotted name keeps a nested one).
 * `_links` survives only when asked for, as in WordPress.
 */
export const pickFields = (item: Json, fields: ReadonlyArray<string> | undefined): Json => {
  if (fields === undefined) return item
  const out: Json = {}
  for (const field of fields) {
    const path = field.split(".")
    let from: unknown = item
    let to: Json = out
    for (let i = 0; i < path.length && typeof from === "object" && from !== null; i++) {
      const key = path[i]!
      if (!(key in from)) break
      const value = (from as Json)[key]
      if (i === path.length - 1) to[key] = value
      else to = (to[key] ??= {}) as Json
      from = value
    }
  }
  return out
}
