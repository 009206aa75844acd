import { netSalesOf, type Rows } from "../support/net-sales.js"
import { expectedNetSales, type ShopOrder } from "./shop.js"

/** The warehouse against the shop: orders (trash included) and refunds by id, and the daily net sales by row. */
export interface Difference {
  readonly ordersMissing: ReadonlyArray<number>
  readonly ordersExtra: ReadonlyArray<number>
  readonly refundsMissing: ReadonlyArray<number>
  readonly refundsExtra: ReadonlyArray<number>
  readonly daysWrong: ReadonlyArray<string>
}

export const EXACT: Difference = { ordersMissing: [], ordersExtra: [], refundsMissing: [], refundsExtra: [], daysWrong: [] }

const liveIds = async (rows: Rows, table: "store.orders" | "store.refunds", storeId: string) =>
  (await rows<{ id: number }>(`SELECT id FROM ${table} WHERE store_id = $1 AND deleted_at IS NULL ORDER BY id`, [storeId])).map((r) => Number(r.id))

const without = (a: ReadonlyArray<number>, b: ReadonlyArray<number>) => {
  const other = new Set(b)
  return a.filter((x) => !other.has(x))
}

/** What differs between the warehouse's store `storeId` and the shop's own data (snapshotShop). */
export const difference = async (rows: Rows, storeId: string, shop: ReadonlyArray<ShopOrder>): Promise<Difference> => {
  const shopOrders = shop.map((o) => o.id)
  const shopRefunds = shop.flatMap((o) => o.refunds.map((r) => r.id))
  const [orders, refunds] = [await liveIds(rows, "store.orders", storeId), await liveIds(rows, "store.refunds", storeId)]
  const expected = new Map(expectedNetSales(shop).map((r) => [`${r.day} ${r.currency}`, JSON.stringify(r)]))
  const actual = new Map((await netSalesOf(rows, storeId)).map((r) => [`${r["day"]} ${r["currency"]}`, JSON.stringify(r)]))
  const days = [...new Set([...expected.keys(), ...actual.keys()])].sort()
  return {
    ordersMissing: without(shopOrders, orders),
    ordersExtra: without(orders, shopOrders),
    refundsMissing: without(shopRefunds, refunds),
    refundsExtra: without(refunds, shopRefunds),
    daysWrong: days.filter((d) => expected.get(d) !== actual.get(d))
  }
}

/** One line of what differs: the figures a failure, or a benchmark, is about. */
export const describeDifference = (shop: ReadonlyArray<ShopOrder>, d: Difference) =>
  `shop ${shop.length} orders; missing ${d.ordersMissing.length} orders, ${d.refundsMissing.length} refunds; ` +
  `extra ${d.ordersExtra.length} orders, ${d.refundsExtra.length} refunds; ${d.daysWrong.length} (day, currency) rows wrong`
