// /products/reviews (seed part 1 §4.7): list, read, create, update, delete (force required) and batch. In the view
// context the review text is rendered into paragraphs (wpautop), in the edit context it is the raw text, as
// WooCommerce shows it. A delete answers {deleted, previous} like WordPress's comment endpoints.
import { createHash } from "node:crypto"
import { json } from "../../http/reply.ts"
import type { Router } from "../../http/router.ts"
import type { Handler, RequestContext } from "../app.ts"
import { batchHandler } from "../rest/batch.ts"
import { type Body, bool, int, str } from "../rest/body-fields.ts"
import { trashNotSupported, wcError } from "../rest/errors.ts"
import { idFilter, includeOrder, readCommonList } from "../rest/list-params.ts"
import { listReply, pageOf } from "../rest/list-reply.ts"
import { permalink } from "./product-json.ts"
import { within } from "../rest/query.ts"
import { type Json, type RenderContext, dateFields, links } from "../rest/render.ts"
import type { ReviewInput, ReviewRecord } from "./review-store.ts"
import type { StoreState } from "../state.ts"
import { wpautop } from "../text.ts"

const ORDERBY = ["date", "date_gmt", "id", "slug", "include", "product"] as const
const STATUS_FILTER = ["all", "hold", "approved", "spam", "trash"] as const

const reviewJson = (s: StoreState, v: ReviewRecord, r: RenderContext): Json => {
  const product = s.productById.get(v.productId)
  const hash = createHash("md5").update(v.reviewerEmail.trim().toLowerCase()).digest("hex")
  const rels: Record<string, string> = { self: `/products/reviews/${v.id}`, collection: "/products/reviews", up: `/products/${v.productId}` }
  if (v.userId > 0) rels["reviewer"] = `/customers/${v.userId}`
  return {
    id: v.id,
    ...dateFields(r, "date_created", v.created),
    product_id: v.productId,
    product_name: product?.name ?? "",
    product_permalink: product === undefined ? "" : permalink(r, product),
    status: v.status,
    reviewer: v.reviewer,
    reviewer_email: v.reviewerEmail,
    review: r.context === "view" ? wpautop(v.review) : v.review,
    rating: v.rating,
    verified: v.verified,
    reviewer_avatar_urls: Object.fromEntries([24, 48, 96].map((size) => [String(size), `https://secure.gravatar.com/avatar/${hash}?s=${size}&d=mm&r=g`])),
    _links: links(r, rels),
  }
}

const reviewInput = (b: Body): ReviewInput => ({
  product_id: int(b, "product_id"),
  status: str(b, "status"),
  reviewer: str(b, "reviewer"),
  reviewer_email: str(b, "reviewer_email"),
  review: str(b, "review"),
  rating: int(b, "rating"),
  verified: bool(b, "verified"),
})

const findReview = (s: StoreState, id: number, status = 404): ReviewRecord => {
  const review = s.reviews.byId.get(id)
  if (review === undefined) throw wcError(status, "woocommerce_rest_review_invalid_id", "Invalid review ID.")
  return review
}

const listReviews: Handler = (ctx) => {
  const s = ctx.state
  const p = ctx.args()
  const common = readCommonList(p, s.site, { orderby: ORDERBY, orderbyDefault: "date_gmt", modifiedFilter: false, createdFilter: true })
  const reviewer = p.ids("reviewer")
  const reviewerExclude = p.ids("reviewer_exclude")
  const reviewerEmail = p.list("reviewer_email")?.map((e) => e.toLowerCase())
  const product = p.ids("product")
  const status = p.oneOf("status", STATUS_FILTER, "approved")
  const search = p.string("search")?.toLowerCase()
  p.check()
  const ids = idFilter(common)
  const created = within(common.created, common.local, s.site)
  // WordPress's "all" means approved and held, not spam or trash.
  const statusOk = (v: ReviewRecord) => (status === "all" ? v.status === "approved" || v.status === "hold" : v.status === status)
  const rows = s.reviews.all.filter(
    (v) =>
      statusOk(v) &&
      created(v.created) &&
      (ids === undefined || ids(v.id)) &&
      (reviewer === undefined || reviewer.includes(v.userId)) &&
      (reviewerExclude === undefined || !reviewerExclude.includes(v.userId)) &&
      (reviewerEmail === undefined || reviewerEmail.includes(v.reviewerEmail.toLowerCase())) &&
      (product === undefined || product.includes(v.productId)) &&
      (search === undefined || search === "" || [v.review, v.reviewer, v.reviewerEmail].some((f) => f.toLowerCase().includes(search))),
  )
  // WP_Comment_Query always appends comment_ID "to ensure determinate sorting": reviews never tie.
  const compare: (a: ReviewRecord, b: ReviewRecord) => number =
    common.orderby === "include"
      ? includeOrder(common)
      : common.orderby === "product"
        ? (a, b) => a.productId - b.productId || a.id - b.id
        : common.orderby === "id" || common.orderby === "slug"
          ? (a, b) => a.id - b.id
          : (a, b) => a.created - b.created || a.id - b.id
  const r = ctx.render(2)
  return listReply(ctx, common, pageOf(rows, common, compare, s.listRng()), (v) => reviewJson(s, v, r))
}

const remove = (ctx: RequestContext, id: number): Json => {
  const review = findReview(ctx.state, id)
  const previous = reviewJson(ctx.state, review, ctx.render(2))
  ctx.state.reviews.delete(review)
  return { deleted: true, previous }
}

export const registerReviews = (router: Router<Handler>): void => {
  const update: Handler = (ctx, { id }) => json(200, reviewJson(ctx.state, ctx.state.reviews.update(findReview(ctx.state, Number(id), 400), reviewInput(ctx.body)), ctx.render(2)))
  router
    .add("GET", "/products/reviews", listReviews)
    .add("POST", "/products/reviews", (ctx) => {
      const review = ctx.state.reviews.create(reviewInput(ctx.body))
      return json(201, reviewJson(ctx.state, review, ctx.render(2)), { Location: `${ctx.apiUrl}/products/reviews/${review.id}` })
    })
    .add(
      "POST",
      "/products/reviews/batch",
      batchHandler({
        create: (ctx, b) => reviewJson(ctx.state, ctx.state.reviews.create(reviewInput(b)), ctx.render(2)),
        update: (ctx, b) => reviewJson(ctx.state, ctx.state.reviews.update(findReview(ctx.state, Number(b["id"] ?? 0), 400), reviewInput(b)), ctx.render(2)),
        delete: remove,
      }),
    )
    .add("GET", "/products/reviews/:id", (ctx, { id }) => json(200, reviewJson(ctx.state, findReview(ctx.state, Number(id)), ctx.render(2))))
    .add("PUT", "/products/reviews/:id", update)
    .add("PATCH", "/products/reviews/:id", update)
    .add("POST", "/products/reviews/:id", update)
    .add("DELETE", "/products/reviews/:id", (ctx, { id }) => {
      const p = ctx.args()
      const force = p.bool("force", false)
      p.check()
      findReview(ctx.state, Number(id))
      if (!force) throw trashNotSupported("Reviews")
      return json(200, remove(ctx, Number(id)))
    })
}
