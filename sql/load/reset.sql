-- Empties one store's sales tables (the demo starts from nothing each time). $1 store id
WITH o AS (DELETE FROM store.orders WHERE store_id = $1),
     li AS (DELETE FROM store.order_line_items WHERE store_id = $1),
     tl AS (DELETE FROM store.order_tax_lines WHERE store_id = $1),
     sl AS (DELETE FROM store.order_shipping_lines WHERE store_id = $1),
     fl AS (DELETE FROM store.order_fee_lines WHERE store_id = $1),
     cl AS (DELETE FROM store.order_coupon_lines WHERE store_id = $1),
     r AS (DELETE FROM store.refunds WHERE store_id = $1),
     rl AS (DELETE FROM store.refund_line_items WHERE store_id = $1),
     c AS (DELETE FROM store.customers WHERE store_id = $1),
     p AS (DELETE FROM store.products WHERE store_id = $1),
     v AS (DELETE FROM store.product_variations WHERE store_id = $1),
     sr AS (DELETE FROM store.sales_report_daily WHERE store_id = $1)
SELECT 1
