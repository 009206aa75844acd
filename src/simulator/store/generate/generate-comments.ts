// Generated comments: product reviews and order notes, from their own random stream so that the rest of the
// generated shop stays exactly as it was. The approved reviews of a product are exactly its rating counts (so
// average_rating and rating_count agree with the reviews); a few held or spam reviews come on top. A small share of
// orders carry notes. Reviews and notes share WordPress's comment ids, given in creation order.
import { createRng } from "../../http/prng.ts"
import type { CustomerRecord, OrderRecord, ProductRecord } from "../model.ts"
import type { NoteRecord } from "../orders/note-store.ts"
import { personFor } from "../people.ts"
import type { ReviewRecord, ReviewStatus } from "../products/review-store.ts"
import { DAY } from "../dates.ts"

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

const GUEST_REVIEWERS = 2_000_000

const TEXTS: ReadonlyArray<ReadonlyArray<string>> = [
  ["Fell apart after a week.", "Not as described, sending it back."],
  ["Disappointing quality for the price.", "Runs small and the colour is off."],
  ["It is fine, nothing special.", "Does the job.\n\nShipping took a while though."],
  ["Good value, would buy again.", "Nice quality, fits well."],
  ["Love it!", "Excellent quality and fast delivery.\n\nHighly recommended."],
]

const CUSTOMER_NOTES = ["Your order has been shipped.", "Your parcel is on its way: tracking number 1Z999AA10123456784.", "We are sorry for the delay, your order ships tomorrow."]
const PRIVATE_NOTES = ["Customer called to confirm the address.", "Gift wrapping requested by phone.", "Packed by warehouse team B."]

export const generateComments = (
  seed: number,
  products: ReadonlyArray<ProductRecord>,
  customers: ReadonlyArray<CustomerRecord>,
  orders: ReadonlyArray<OrderRecord>,
  endUtc: number,
): { reviews: ReviewRecord[]; notes: NoteRecord[] } => {
  const rng = createRng((seed ^ 0x5e7c0de) >>> 0)
  const reviews: Mutable<ReviewRecord>[] = []
  const review = (p: ProductRecord, rating: number, status: ReviewStatus): void => {
    const customer = customers.length > 0 && rng.chance(0.5) ? rng.pick(customers) : undefined
    const person = personFor(customer?.person ?? GUEST_REVIEWERS + rng.int(0, 99_999))
    reviews.push({
      id: 0,
      productId: p.id,
      created: p.created + rng.int(DAY, Math.max(DAY, endUtc - p.created)),
      status,
      previous: "approved",
      reviewer: `${person.billing.first_name} ${person.billing.last_name}`,
      reviewerEmail: customer?.email ?? person.billing.email,
      userId: customer?.id ?? 0,
      review: rng.pick(TEXTS[rating - 1]!),
      rating,
      verified: customer !== undefined && rng.chance(0.8),
    })
  }
  for (const p of products) {
    p.ratings.forEach((count, i) => {
      for (let k = 0; k < count; k++) review(p, i + 1, "approved")
    })
    if (rng.chance(0.1)) review(p, rng.int(1, 5), rng.chance(0.5) ? "hold" : "spam")
  }

  const notes: Mutable<NoteRecord>[] = []
  for (const o of orders) {
    if (!rng.chance(0.05)) continue
    const customerNote = rng.chance(0.5)
    notes.push({
      id: 0,
      orderId: o.id,
      created: o.created + rng.int(60, Math.max(60, o.modified - o.created)),
      note: rng.pick(customerNote ? CUSTOMER_NOTES : PRIVATE_NOTES),
      customerNote,
      addedByUser: true,
    })
  }

  // Array sort is stable: equal times keep generation order.
  const all: { id: number; created: number }[] = [...reviews, ...notes].sort((a, b) => a.created - b.created)
  all.forEach((c, i) => (c.id = i + 1))
  return { reviews, notes }
}
