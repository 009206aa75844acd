// Order notes (WordPress comments of type "order_note"): written through the API, and by the shop itself on status
// changes, stock changes and order e-mails, as WooCommerce does. Notes do not touch the order's date_modified.
import { wcError } from "../rest/errors.ts"
import type { Ids } from "../ids.ts"

export interface NoteRecord {
  readonly id: number
  readonly orderId: number
  created: number
  note: string
  /** Shown to (and e-mailed to) the customer. */
  customerNote: boolean
  /** Written by the API user rather than by the system. */
  addedByUser: boolean
}

/** Authors as WooCommerce shows them: the system, or the display name of the user who wrote the note. */
export const SYSTEM_AUTHOR = "WooCommerce"
export const USER_AUTHOR = "admin"

export class NoteStore {
  private readonly byOrder = new Map<number, NoteRecord[]>()

  constructor(
    private readonly ids: Ids,
    private readonly now: () => number,
    initial: ReadonlyArray<NoteRecord>,
  ) {
    for (const n of initial) {
      this.listFor(n.orderId).push(n)
      ids.reserve("comment", n.id)
    }
  }

  of(orderId: number): ReadonlyArray<NoteRecord> {
    return this.byOrder.get(orderId) ?? []
  }

  add(orderId: number, note: string, options: { customerNote?: boolean; addedByUser?: boolean } = {}): NoteRecord {
    if (note.trim() === "") throw wcError(400, "woocommerce_rest_invalid_order_note", "Cannot create order note, please try again.")
    const record: NoteRecord = { id: this.ids.take("comment"), orderId, created: this.now(), note, customerNote: options.customerNote ?? false, addedByUser: options.addedByUser ?? false }
    this.listFor(orderId).push(record)
    return record
  }

  delete(note: NoteRecord): void {
    const list = this.listFor(note.orderId)
    list.splice(list.indexOf(note), 1)
  }

  /** A force-deleted order takes its notes with it. */
  deleteForOrder(orderId: number): void {
    this.byOrder.delete(orderId)
  }

  private listFor(orderId: number): NoteRecord[] {
    let list = this.byOrder.get(orderId)
    if (list === undefined) this.byOrder.set(orderId, (list = []))
    return list
  }
}
