-- analytics.customer_orders: each counted order with the customer it belongs to, the identity the customer
-- marts group by. A registered customer is its id (the order's customer_id); a guest order (customer_id 0) belongs
-- to the registered customer whose email is its billing email (trimmed, case-insensitive; the lowest id if several),
-- else to that email as a guest. An order with neither a customer nor a billing email belongs to no one and is left
-- out. `refunds` are the order's counted refunds, whenever made (a customer's revenue is net of its orders' refunds).
CREATE OR REPLACE VIEW analytics.customer_orders AS
WITH registered AS NOT MATERIALIZED (
  SELECT DISTINCT ON (store_id, lower(btrim(email))) store_id, lower(btrim(email)) AS email, id
  FROM store.customers
  WHERE deleted_at IS NULL AND nullif(btrim(email), '') IS NOT NULL
  ORDER BY store_id, lower(btrim(email)), id
), refunded AS NOT MATERIALIZED (
  SELECT store_id, order_id, sum(amount) AS refunds
  FROM analytics.counted_refunds
  GROUP BY store_id, order_id
), owned AS NOT MATERIALIZED (
  SELECT o.store_id, o.id AS order_id, o.currency, o.total, o.created_day, o.date_created,
         lower(nullif(btrim(o.billing_email), '')) AS email,
         coalesce(nullif(o.customer_id, 0), c.id) AS customer_id
  FROM analytics.counted_orders o
  LEFT JOIN registered c ON o.customer_id = 0 AND c.store_id = o.store_id AND c.email = lower(btrim(o.billing_email))
)
SELECT o.store_id,
       o.order_id,
       CASE WHEN o.customer_id IS NOT NULL THEN 'customer:' || o.customer_id ELSE 'guest:' || o.email END AS customer_key,
       o.customer_id,
       o.email,
       o.currency,
       o.total,
       coalesce(r.refunds, 0)::numeric AS refunds,
       o.created_day,
       o.date_created
FROM owned o
LEFT JOIN refunded r ON r.store_id = o.store_id AND r.order_id = o.order_id
WHERE o.customer_id IS NOT NULL OR o.email IS NOT NULL;

COMMENT ON VIEW analytics.customer_orders IS
  'Each counted order with the customer it belongs to: a registered customer by id (a guest order billed to a registered customer''s email counts for that customer), else the billing email as a guest; orders with neither are left out. Money is numeric in currency.';
COMMENT ON COLUMN analytics.customer_orders.store_id IS 'The shopsync store id (STORE_ID).';
COMMENT ON COLUMN analytics.customer_orders.order_id IS 'The order (API `id`).';
COMMENT ON COLUMN analytics.customer_orders.customer_key IS 'Who the order belongs to: ''customer:<id>'' for a registered customer, ''guest:<email>'' (trimmed, lower-cased) for a guest.';
COMMENT ON COLUMN analytics.customer_orders.customer_id IS 'The registered customer (API `customer_id`, else the customer whose email the guest order was billed to); NULL for a guest.';
COMMENT ON COLUMN analytics.customer_orders.email IS 'The order''s billing email, trimmed and lower-cased; NULL when it has none.';
COMMENT ON COLUMN analytics.customer_orders.currency IS 'The order''s currency, ISO 4217.';
COMMENT ON COLUMN analytics.customer_orders.total IS 'API `total`: what the customer paid, tax and shipping included; numeric, in currency.';
COMMENT ON COLUMN analytics.customer_orders.refunds IS 'The sum of the order''s counted refunds, whenever made; numeric, in currency; 0 without any.';
COMMENT ON COLUMN analytics.customer_orders.created_day IS 'The store-local day the order was created.';
COMMENT ON COLUMN analytics.customer_orders.date_created IS 'When the order was created, UTC.';
