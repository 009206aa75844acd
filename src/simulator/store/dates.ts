// Site-local wall clock <-> UTC. Internally every date is whole epoch seconds (UTC); "wall" seconds are the
// local wall-clock reading encoded as if it were UTC, which makes local columns comparable and printable.

const QUARTER_HOUR = 900

/** Seconds in a day and an hour of UTC (a local day may be 23 or 25 hours: SiteTime says). */
export const DAY = 86400
export const HOUR = 3600

/** `YYYY-MM-DDTHH:MM:SS` of epoch (or wall) seconds, no offset suffix. */
export const formatSeconds = (seconds: number): string => new Date(seconds * 1000).toISOString().slice(0, 19)

export class SiteTime {
  private readonly formatter: Intl.DateTimeFormat
  // Offsets only change on quarter-hour boundaries in every current zone, so one Intl call per quarter hour suffices.
  private readonly offsets = new Map<number, number>()
  private bounds: { min: number; max: number } | undefined

  constructor(readonly timezone: string) {
    this.formatter = new Intl.DateTimeFormat("en-US", {
      timeZone: timezone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    })
  }

  /** Seconds to add to UTC to get the local wall clock at that instant. */
  offset(utc: number): number {
    const bucket = Math.floor(utc / QUARTER_HOUR)
    let off = this.offsets.get(bucket)
    if (off === undefined) {
      off = this.computeOffset(bucket * QUARTER_HOUR)
      this.offsets.set(bucket, off)
    }
    return off
  }

  wall(utc: number): number {
    return utc + this.offset(utc)
  }

  /** `YYYY-MM-DDTHH:MM:SS` in site-local time. */
  local(utc: number): string {
    return formatSeconds(this.wall(utc))
  }

  /**
   * The instant showing this wall clock. An ambiguous time (DST fall-back) gives the earlier instant;
   * a time skipped by DST spring-forward gives the instant as many seconds after the jump, like PHP.
   */
  fromWall(wall: number): number {
    const before = this.offset(wall - 86400)
    const after = this.offset(wall + 86400)
    const candidates = [wall - before, wall - after].filter((t) => this.wall(t) === wall)
    return candidates.length > 0 ? Math.min(...candidates) : wall - before
  }

  /** Smallest and largest offset the zone uses (sampled 1990-2060), to bound searches on UTC-sorted indexes. */
  offsetBounds(): { min: number; max: number } {
    if (this.bounds === undefined) {
      let min = Infinity
      let max = -Infinity
      for (let t = Date.UTC(1990, 0, 1) / 1000; t < Date.UTC(2060, 0, 1) / 1000; t += 14 * 86400) {
        const off = this.offset(t)
        min = Math.min(min, off)
        max = Math.max(max, off)
      }
      this.bounds = { min, max }
    }
    return this.bounds
  }

  private computeOffset(utc: number): number {
    const parts: Record<string, number> = {}
    for (const p of this.formatter.formatToParts(new Date(utc * 1000))) {
      if (p.type !== "literal") parts[p.type] = Number(p.value)
    }
    const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!) / 1000
    return wall - utc
  }
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/

/** Naive `YYYY-MM-DD[T ]HH:MM:SS` (no offset) as wall seconds; undefined if malformed or out of range. */
const naiveSeconds = (y: string, mo: string, d: string, h: string, mi: string, s: string): number | undefined => {
  const ms = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s)
  return formatSeconds(ms / 1000) === `${y}-${mo}-${d}T${h}:${mi}:${s}` ? ms / 1000 : undefined
}

/**
 * A date filter value (after, before, modified_after, modified_before) as the naive seconds the database compares
 * with its column. As in WordPress, fractions are dropped and a value carrying Z or an offset is first converted
 * to the site-local wall clock, whichever column (local or GMT) it is then compared with.
 * Undefined for anything that is not an RFC 3339 date-time (a date-only value included).
 */
export const parseFilterDate = (value: string, site: SiteTime): number | undefined => {
  const m = DATE_TIME.exec(value)
  if (m === null) return undefined
  const naive = naiveSeconds(m[1]!, m[2]!, m[3]!, m[4]!, m[5]!, m[6]!)
  if (naive === undefined) return undefined
  const zone = m[7]
  if (zone === undefined) return naive
  if (zone === "Z" || zone === "z") return site.wall(naive)
  const zm = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!
  const offset = (zm[1] === "-" ? -1 : 1) * (Number(zm[2]) * 3600 + Number(zm[3] ?? 0) * 60)
  return site.wall(naive - offset)
}

/** A `YYYY-MM-DD` calendar day as wall seconds at 00:00:00; undefined if malformed. */
export const parseDay = (value: string): number | undefined => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value)
  return m === null ? undefined : naiveSeconds(m[1]!, m[2]!, m[3]!, "00", "00", "00")
}

/**
 * The instant a store's data should end for `--until` (`today`, or a past `YYYY-MM-DD` in the store's zone): now for
 * today, else the end of that local day. A string saying what is wrong for anything else, a future day included
 * (data the store's clock has not reached would not be read by a sync until then).
 */
export const endOfUntil = (until: string, site: SiteTime, nowMs: number): number | string => {
  const now = Math.floor(nowMs / 1000)
  const today = Math.floor(site.wall(now) / 86400) * 86400
  if (until === "today") return now
  const day = parseDay(until)
  if (day === undefined) return `--until must be today or a day written YYYY-MM-DD, got "${until.slice(0, 40)}"`
  if (day > today) return `--until ${until} is after today (${formatSeconds(today).slice(0, 10)} in ${site.timezone}): a sync reads nothing dated after the store's clock; use today or an earlier day`
  return day === today ? now : site.fromWall(day + 86400)
}
