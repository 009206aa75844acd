// The list arguments WooCommerce collections share (paging, order, include/exclude, date filters, dp, _fields).
import type { SiteTime } from "../dates.ts"
import { wcError } from "./errors.ts"
import type { ParamReader } from "./params.ts"
import type { DateRange } from "./query.ts"

export interface CommonList<O extends string> {
  page: number
  perPage: number
  /** Rows to skip: `offset` when given (it overrides page), else (page - 1) * perPage. */
  skip: number
  desc: boolean
  orderby: O
  include: number[] | undefined
  exclude: number[] | undefined
  created: DateRange | undefined
  modified: DateRange | undefined
  /** Without dates_are_gmt=true the date filters compare the site-local columns. */
  local: boolean
  dp: number
  fields: string[] | undefined
}

export interface ListSpec<O extends string> {
  orderby: ReadonlyArray<O>
  orderbyDefault: O
  orderDefault?: "asc" | "desc"
  /** Whether the resource has modified_after / modified_before (customers, for one, do not). */
  modifiedFilter: boolean
  /** Whether it has after / before on the created date. */
  createdFilter: boolean
}

const range = (after: number | undefined, before: number | undefined): DateRange | undefined =>
  after === undefined && before === undefined
    ? undefined
    : { ...(after === undefined ? {} : { after }), ...(before === undefined ? {} : { before }) }

/** Reads and validates the shared arguments; call `p.check()` after reading the resource's own ones. */
export const readCommonList = <O extends string>(p: ParamReader, site: SiteTime, spec: ListSpec<O>): CommonList<O> => {
  p.oneOf("context", ["view", "edit"])
  const page = p.int("page", { def: 1, min: 1 })!
  const perPage = p.int("per_page", { def: 10, min: 1, max: 100 })!
  const offset = p.int("offset", { min: 0 })
  const order = p.oneOf("order", ["asc", "desc"], spec.orderDefault ?? "desc")
  const orderby = p.oneOf("orderby", spec.orderby, spec.orderbyDefault)
  const include = p.ids("include")
  const created = spec.createdFilter ? range(p.dateTime("after", site), p.dateTime("before", site)) : undefined
  const modified = spec.modifiedFilter ? range(p.dateTime("modified_after", site), p.dateTime("modified_before", site)) : undefined
  const common: CommonList<O> = {
    page,
    perPage,
    skip: offset ?? (page - 1) * perPage,
    desc: order === "desc",
    orderby,
    include,
    exclude: p.ids("exclude"),
    created,
    modified,
    local: !p.bool("dates_are_gmt", false),
    dp: p.int("dp", { def: 2, min: 0 })!,
    fields: p.list("_fields"),
  }
  if (orderby === ("include" as O) && (include === undefined || include.length === 0)) {
    p.check()
    throw wcError(400, "rest_orderby_include_missing_include", "You need to define an include parameter to order by include.")
  }
  return common
}

/** include / exclude as one id test; undefined when neither was given. */
export const idFilter = (common: CommonList<string>): ((id: number) => boolean) | undefined => {
  const include = common.include === undefined ? undefined : new Set(common.include)
  const exclude = common.exclude === undefined ? undefined : new Set(common.exclude)
  if (include === undefined && exclude === undefined) return undefined
  return (id) => (include === undefined || include.has(id)) && (exclude === undefined || !exclude.has(id))
}

/** orderby=include: the position in the include list. */
export const includeOrder = (common: CommonList<string>): ((a: { id: number }, b: { id: number }) => number) => {
  const position = new Map((common.include ?? []).map((id, i) => [id, i]))
  return (a, b) => position.get(a.id)! - position.get(b.id)! || a.id - b.id
}
