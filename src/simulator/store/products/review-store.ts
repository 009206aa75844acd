// Product reviews (WordPress comments of type "review"). A product's average_rating and rating_count come from
// its approved reviews: every write that changes what is approved keeps the product's rating counts in step.
import { ADMIN_USER_ID } from "../catalog.ts"
import { wcError } from "../rest/errors.ts"
import type { Ids } from "../ids.ts"
import type { ProductRecord } from "../model.ts"

export type ReviewStatus = "approved" | "hold" | "spam" | "trash"

export interface ReviewRecord {
  readonly id: number
  productId: number
  created: number
  status: ReviewStatus
  /** Where unspam / untrash return to. */
  previous: "approved" | "hold"
  reviewer: string
  reviewerEmail: string
  /** The reviewer's user id; 0 for a guest. */
  userId: number
  review: string
  rating: number
  verified: boolean
}

export interface ReviewInput {
  product_id?: number
  status?: string
  reviewer?: string
  reviewer_email?: string
  review?: string
  rating?: number
  verified?: boolean
}

const REVIEW_WRITE_STATUSES = ["approved", "hold", "spam", "unspam", "trash", "untrash"] as const

const ADMIN_REVIEWER = { name: "admin", email: "admin@example.com" }

const validate = (input: ReviewInput): void => {
  if (input.rating !== undefined && (input.rating < 0 || input.rating > 5)) {
    throw wcError(400, "rest_invalid_param", "Invalid parameter(s): rating", { params: { rating: "rating must be between 0 (inclusive) and 5 (inclusive)" } })
  }
  if (input.status !== undefined && !(REVIEW_WRITE_STATUSES as ReadonlyArray<string>).includes(input.status)) {
    throw wcError(400, "rest_invalid_param", "Invalid parameter(s): status", { params: { status: `status is not one of ${REVIEW_WRITE_STATUSES.join(", ")}.` } })
  }
}

export class ReviewStore {
  readonly byId = new Map<number, ReviewRecord>()

  constructor(
    private readonly ids: Ids,
    private readonly product: (id: number) => ProductRecord | undefined,
    private readonly now: () => number,
    initial: ReadonlyArray<ReviewRecord>,
  ) {
    for (const r of initial) {
      this.byId.set(r.id, r)
      ids.reserve("comment", r.id)
    }
  }

  get all(): ReviewRecord[] {
    return [...this.byId.values()]
  }

  create(input: ReviewInput): ReviewRecord {
    const product = input.product_id === undefined ? undefined : this.product(input.product_id)
    if (product === undefined) throw wcError(404, "woocommerce_rest_product_invalid_id", "Invalid product ID.")
    if (input.review === undefined || input.review.trim() === "") throw wcError(400, "woocommerce_rest_review_content_invalid", "Invalid review content.")
    validate(input)
    // Authenticated with the shop manager's keys: missing reviewer data is the current user's, as in WooCommerce.
    const review: ReviewRecord = {
      id: this.ids.take("comment"),
      productId: product.id,
      created: this.now(),
      status: "approved",
      previous: "approved",
      reviewer: input.reviewer ?? ADMIN_REVIEWER.name,
      reviewerEmail: input.reviewer_email ?? ADMIN_REVIEWER.email,
      userId: input.reviewer === undefined && input.reviewer_email === undefined ? ADMIN_USER_ID : 0,
      review: input.review,
      rating: 0,
      verified: input.verified ?? false,
    }
    this.byId.set(review.id, review)
    this.change(review, () => this.apply(review, { ...input, product_id: undefined }))
    return review
  }

  update(review: ReviewRecord, input: ReviewInput): ReviewRecord {
    if (input.product_id !== undefined && this.product(input.product_id) === undefined) throw wcError(404, "woocommerce_rest_product_invalid_id", "Invalid product ID.")
    if (input.review !== undefined && input.review.trim() === "") throw wcError(400, "woocommerce_rest_review_content_invalid", "Invalid review content.")
    validate(input)
    this.change(review, () => this.apply(review, input))
    return review
  }

  delete(review: ReviewRecord): void {
    this.change(review, () => this.byId.delete(review.id))
  }

  /** Deleting a product deletes its reviews (wp_delete_post removes the post's comments). */
  deleteForProduct(productId: number): void {
    for (const r of this.all) if (r.productId === productId) this.byId.delete(r.id)
  }

  private apply(review: ReviewRecord, input: ReviewInput): void {
    if (input.product_id !== undefined) review.productId = input.product_id
    if (input.reviewer !== undefined) review.reviewer = input.reviewer
    if (input.reviewer_email !== undefined) review.reviewerEmail = input.reviewer_email
    if (input.review !== undefined) review.review = input.review
    if (input.rating !== undefined) review.rating = input.rating
    if (input.verified !== undefined) review.verified = input.verified
    if (input.status !== undefined) this.setStatus(review, input.status)
  }

  /** WordPress's comment status moves: spam and trash remember the status to return to. */
  private setStatus(review: ReviewRecord, status: string): void {
    switch (status) {
      case "approved":
      case "hold":
        review.status = status
        break
      case "spam":
      case "trash":
        if (review.status === "approved" || review.status === "hold") review.previous = review.status
        review.status = status
        break
      case "unspam":
        if (review.status === "spam") review.status = review.previous
        break
      case "untrash":
        if (review.status === "trash") review.status = review.previous
        break
    }
  }

  /** Runs a change and moves the review's rating between its products' counts as its approval changes. */
  private change(review: ReviewRecord, mutate: () => void): void {
    const count = (sign: 1 | -1) => {
      const product = this.byId.has(review.id) && review.status === "approved" && review.rating > 0 ? this.product(review.productId) : undefined
      if (product !== undefined) product.ratings[review.rating - 1]! += sign
    }
    count(-1)
    try {
      mutate()
    } finally {
      count(1)
    }
  }
}
