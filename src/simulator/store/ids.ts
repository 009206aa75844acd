// The id sequences of a WordPress shop: posts (products, variations, orders, refunds, image attachments), users,
// order items, meta rows, comments (reviews and order notes share them), terms (categories, tags, shipping
// classes and attribute terms share them), plus the small tables with their own auto-increment.

export type Sequence = "post" | "user" | "item" | "meta" | "comment" | "term" | "attribute" | "taxRate" | "zone" | "zoneMethod" | "webhook" | "delivery"

export class Ids {
  private readonly next: Record<Sequence, number>

  /** `last` holds the highest id already used in each sequence. */
  constructor(last: Partial<Record<Sequence, number>>) {
    const start = (k: Sequence) => (last[k] ?? 0) + 1
    this.next = {
      post: start("post"),
      user: start("user"),
      item: start("item"),
      meta: start("meta"),
      comment: start("comment"),
      term: start("term"),
      attribute: start("attribute"),
      taxRate: start("taxRate"),
      zone: start("zone"),
      zoneMethod: start("zoneMethod"),
      webhook: start("webhook"),
      delivery: start("delivery"),
    }
  }

  take(sequence: Sequence): number {
    return this.next[sequence]++
  }

  /** `count` consecutive ids; returns the first. */
  block(sequence: Sequence, count: number): number {
    const first = this.next[sequence]
    this.next[sequence] += count
    return first
  }

  /** Makes sure ids handed out later stay above `id` (for records added after construction). */
  reserve(sequence: Sequence, id: number): void {
    this.next[sequence] = Math.max(this.next[sequence], id + 1)
  }
}
