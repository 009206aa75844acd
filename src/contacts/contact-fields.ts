// The custom contact fields the push writes (commerce facts), created in the service when missing.
// Their aliases are the keys the contact state gets in sql/contacts/enqueue.sql.
import type { CustomField } from "../marketing-client/client.js"

export const CONTACT_FIELDS: ReadonlyArray<CustomField> = [
  { alias: "shop_orders_count", label: "Shop orders count", type: "number" },
  { alias: "shop_total_spent", label: "Shop total spent", type: "number" },
  { alias: "shop_refunded_total", label: "Shop refunded total", type: "number" },
  { alias: "shop_currency", label: "Shop currency", type: "text" },
  { alias: "shop_spent_by_currency", label: "Shop spent by currency", type: "text" },
  { alias: "shop_first_order", label: "Shop first order", type: "date" },
  { alias: "shop_last_order", label: "Shop last order", type: "date" }
]
