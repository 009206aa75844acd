import { Either, Option, ParseResult, Schema } from "effect"

/**
 * The days the status page charts. By default the CHART_DAYS ending at the last day with sales (not today: a store
 * whose data stops in the past, the demo's included, still shows its chart); `?from=YYYY-MM-DD&to=YYYY-MM-DD` sets
 * them, either alone giving CHART_DAYS from or to it. Whatever the query holds is hostile: each value must be one
 * calendar day, the range must run forwards and span at most MAX_CHART_DAYS; anything else is refused (400) with
 * the problem, before the warehouse is asked anything.
 */
export const CHART_DAYS = 90
/** Three years, one of them leap: beyond that a bar would be narrower than a pixel. */
export const MAX_CHART_DAYS = 1096

const DAY_MS = 86_400_000
const FIRST_YEAR = 1970
const LAST_YEAR = 2999

/** A calendar day written YYYY-MM-DD, between FIRST_YEAR and LAST_YEAR (so day arithmetic stays in four digits). */
export const Day = Schema.String.pipe(
  Schema.pattern(/^\d{4}-\d{2}-\d{2}$/),
  Schema.filter((text) => {
    const date = new Date(`${text}T00:00:00Z`)
    const year = Number(text.slice(0, 4))
    return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text && year >= FIRST_YEAR && year <= LAST_YEAR
  }),
  Schema.brand("Day")
)
export type Day = typeof Day.Type

export const addDays = (day: string, days: number): string => new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10)
export const daysBetween = (first: string, last: string): number => Math.round((Date.parse(`${last}T00:00:00Z`) - Date.parse(`${first}T00:00:00Z`)) / DAY_MS) + 1

/** What the URL asked for: each bound, when given. */
export interface ChartRequest {
  readonly from: Option.Option<Day>
  readonly to: Option.Option<Day>
}

export const DEFAULT_REQUEST: ChartRequest = { from: Option.none(), to: Option.none() }

const USAGE = `write the range as ?from=YYYY-MM-DD&to=YYYY-MM-DD (at most ${MAX_CHART_DAYS} days), or leave it out for the last ${CHART_DAYS} days with sales`

/** One bound of the query: absent, a day, or why not (the value itself is not repeated: it is the client's). */
const bound = (params: URLSearchParams, name: "from" | "to"): Either.Either<Option.Option<Day>, string> => {
  const values = params.getAll(name)
  if (values.length === 0) return Either.right(Option.none())
  if (values.length > 1) return Either.left(`${name} is given ${values.length} times; give it once: ${USAGE}`)
  return Schema.decodeUnknownEither(Day)(values[0]).pipe(
    Either.mapBoth({
      onLeft: (_: ParseResult.ParseError) => `${name} is not a day between ${FIRST_YEAR} and ${LAST_YEAR}: ${USAGE}`,
      onRight: Option.some
    })
  )
}

/** The range a query asks for, or why it cannot be drawn. Other parameters are ignored. */
export const parseChartRequest = (params: URLSearchParams): Either.Either<ChartRequest, string> =>
  Either.gen(function*() {
    const from = yield* bound(params, "from")
    const to = yield* bound(params, "to")
    if (Option.isSome(from) && Option.isSome(to)) {
      if (from.value > to.value) return yield* Either.left(`from (${from.value}) is after to (${to.value}): swap them`)
      const span = daysBetween(from.value, to.value)
      if (span > MAX_CHART_DAYS) return yield* Either.left(`the range spans ${span} days, more than ${MAX_CHART_DAYS} (three years): narrow it`)
    }
    return { from, to }
  })

/** First and last day drawn, given the last day with sales (or today when there is none). */
export const resolveRange = (request: ChartRequest, latest: string): { readonly first: string; readonly last: string } => {
  if (Option.isSome(request.from) && Option.isSome(request.to)) return { first: request.from.value, last: request.to.value }
  if (Option.isSome(request.from)) return { first: request.from.value, last: addDays(request.from.value, CHART_DAYS - 1) }
  const last = Option.getOrElse(request.to, () => latest)
  return { first: addDays(last, -(CHART_DAYS - 1)), last }
}

/** Whether the URL chose the range (else it is the default: the CHART_DAYS ending at the last day with sales). */
export const isChosen = (request: ChartRequest) => Option.isSome(request.from) || Option.isSome(request.to)
