// WordPress-style paging headers: X-WP-Total, X-WP-TotalPages and a Link header with rel="next"/"prev" only.

export interface PageInfo {
  /** Absolute URL of the collection, without query. */
  collectionUrl: string
  /** The request's query; every parameter but `page` is carried into the links, as WordPress does. */
  query: URLSearchParams
  total: number
  perPage: number
  page: number
}

const pageUrl = (info: PageInfo, page: number): string => {
  const q = new URLSearchParams(info.query)
  q.set("page", String(page))
  return `${info.collectionUrl}?${q.toString()}`
}

export const pagingHeaders = (info: PageInfo): Record<string, string> => {
  const totalPages = Math.ceil(info.total / info.perPage)
  const links: string[] = []
  if (info.page > 1) {
    // Past the end, WordPress points "prev" at the last page rather than page - 1.
    const prev = Math.min(info.page - 1, totalPages)
    if (prev >= 1) links.push(`<${pageUrl(info, prev)}>; rel="prev"`)
  }
  if (totalPages > info.page) links.push(`<${pageUrl(info, info.page + 1)}>; rel="next"`)
  const headers: Record<string, string> = { "X-WP-Total": String(info.total), "X-WP-TotalPages": String(totalPages) }
  if (links.length > 0) headers["Link"] = links.join(", ")
  return headers
}
