// A page of rendered rows with WordPress's paging headers.
import { pagingHeaders } from "../../http/paging.ts"
import type { Rng } from "../../http/prng.ts"
import { type Reply, json } from "../../http/reply.ts"
import type { RequestContext } from "../app.ts"
import type { CommonList } from "./list-params.ts"
import { type ListResult, type Ties, page } from "./query.ts"
import { type Json, pickFields } from "./render.ts"

export const listReply = <T>(ctx: RequestContext, common: CommonList<string>, result: ListResult<T>, render: (t: T) => Json): Reply =>
  json(
    200,
    result.items.map((t) => pickFields(render(t), common.fields)),
    pagingHeaders({ collectionUrl: `${ctx.apiUrl}${ctx.path}`, query: ctx.query, total: result.total, perPage: common.perPage, page: common.page }),
  )

/** A page of rows already sorted ascending, read backwards for order=desc; tied rows come in any order. */
export const slicePage = <T>(sorted: ReadonlyArray<T>, common: CommonList<string>, ties: Ties<T>): ListResult<T> =>
  page({ length: sorted.length, at: (i) => sorted[i]! }, { offset: common.skip, limit: common.perPage, desc: common.desc, ties })

/**
 * For collections kept in plain arrays: sort the filtered rows and cut a page. Rows `compare` finds equal tie,
 * so it breaks ties by id only where the real store's query does.
 */
export const pageOf = <T>(rows: T[], common: CommonList<string>, compare: (a: T, b: T) => number, rng: Rng): ListResult<T> =>
  slicePage(rows.sort(compare), common, { same: (a, b) => compare(a, b) === 0, rng })
