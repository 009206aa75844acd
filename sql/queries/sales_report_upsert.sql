-- $1 store, $2 JSON array of {day, sales, orders, items, tax, shipping, discount, customers, refunds}
INSERT INTO store.sales_report_daily AS r (store_id, day, sales, orders, items, tax, shipping, discount, customers, refunds, fetched_at)
SELECT $1, x.day, x.sales, x.orders, x.items, x.tax, x.shipping, x.discount, x.customers, x.refunds, now()
FROM jsonb_to_recordset($2::jsonb) AS x(day date, sales numeric, orders integer, items integer, tax numeric,
                                         shipping numeric, discount numeric, customers integer, refunds numeric)
ON CONFLICT (store_id, day) DO UPDATE SET
  sales = EXCLUDED.sales, orders = EXCLUDED.orders, items = EXCLUDED.items, tax = EXCLUDED.tax,
  shipping = EXCLUDED.shipping, discount = EXCLUDED.discount, customers = EXCLUDED.customers,
  refunds = EXCLUDED.refunds, fetched_at = EXCLUDED.fetched_at
