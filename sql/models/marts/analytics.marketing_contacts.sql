-- analytics.marketing_contacts: one marketing contact per store and email, as the marketing push copies
-- them into marketing.outbox: every registered customer and every billing email of a counted order, emails trimmed and
-- compared case-insensitively. Registered customers are the users whose role is one of the session setting
-- shopsync.contact_roles (comma-separated; SHOPSYNC_CONTACT_ROLES, set by the enqueue), by default customer and
-- subscriber; staff and other roles count only through the orders billed to their email.
--   names:         the customer's, else the latest counted order's billing names;
--   address/phone: the customer's billing address (when it has one), else the latest order's billing;
--   facts:         counted orders billed to this email (count, first/last store-local day), spent and
--                  refunded in the currency of the latest order, plus every currency's total as text;
--   tags:          customer (registered), repeat-buyer (2+ orders), refunded (any counted refund).
-- Orders belong to the email they were billed to, so each order counts for exactly one contact.
-- The CTEs are inlined (NOT MATERIALIZED) so a filter on store_id reaches the tables.
CREATE OR REPLACE VIEW analytics.marketing_contacts AS
WITH customers AS NOT MATERIALIZED (
  SELECT DISTINCT ON (store_id, lower(btrim(email)))
         store_id, lower(btrim(email)) AS email,
         nullif(btrim(first_name), '') AS first_name, nullif(btrim(last_name), '') AS last_name, billing
  FROM store.customers
  WHERE deleted_at IS NULL AND nullif(btrim(email), '') IS NOT NULL
    AND coalesce(role, 'customer') = ANY (string_to_array(
          coalesce(nullif(current_setting('shopsync.contact_roles', true), ''), 'customer,subscriber'), ','))
  ORDER BY store_id, lower(btrim(email)), id
), orders AS NOT MATERIALIZED (
  SELECT store_id, id, lower(btrim(billing_email)) AS email, currency, total, created_day, date_created, billing
  FROM analytics.counted_orders
  WHERE nullif(btrim(billing_email), '') IS NOT NULL
), latest AS NOT MATERIALIZED (
  SELECT DISTINCT ON (store_id, email) store_id, email, currency, billing
  FROM orders
  ORDER BY store_id, email, date_created DESC, id DESC
), refunded AS NOT MATERIALIZED (
  SELECT o.store_id, o.email, o.currency, sum(r.amount) AS amount
  FROM orders o
  -- counted_refunds less its join back to counted_orders, which `orders` already is.
  JOIN store.refunds r ON r.store_id = o.store_id AND r.order_id = o.id AND r.deleted_at IS NULL
  GROUP BY o.store_id, o.email, o.currency
), per_currency AS NOT MATERIALIZED (
  SELECT store_id, email, currency, sum(total) AS spent
  FROM orders
  GROUP BY store_id, email, currency
), facts AS NOT MATERIALIZED (
  SELECT o.store_id, o.email, count(*)::integer AS orders_count,
         min(o.created_day) AS first_order_day, max(o.created_day) AS last_order_day
  FROM orders o
  GROUP BY o.store_id, o.email
), spent AS NOT MATERIALIZED (
  SELECT store_id, email, string_agg(currency || ' ' || spent::text, '; ' ORDER BY currency) AS spent_by_currency
  FROM per_currency
  GROUP BY store_id, email
), refunded_any AS NOT MATERIALIZED (
  SELECT store_id, email, sum(amount) AS amount
  FROM refunded
  GROUP BY store_id, email
), keys AS NOT MATERIALIZED (
  SELECT store_id, email FROM customers
  UNION
  SELECT store_id, email FROM orders
), joined AS NOT MATERIALIZED (
  SELECT k.store_id, k.email, c.email IS NOT NULL AS is_customer,
         c.first_name AS customer_first_name, c.last_name AS customer_last_name,
         -- A customer's address counts only when it has a street or a city.
         CASE WHEN coalesce(nullif(btrim(c.billing->>'address_1'), ''), nullif(btrim(c.billing->>'city'), '')) IS NOT NULL
              THEN c.billing END AS customer_address,
         c.billing AS customer_billing,
         l.billing AS order_billing, l.currency,
         f.orders_count, f.first_order_day, f.last_order_day,
         pc.spent AS total_spent, coalesce(rf.amount, 0) AS refunded_total,
         coalesce(ra.amount, 0) AS refunded_any,
         s.spent_by_currency
  FROM keys k
  LEFT JOIN customers c ON c.store_id = k.store_id AND c.email = k.email
  LEFT JOIN latest l ON l.store_id = k.store_id AND l.email = k.email
  LEFT JOIN facts f ON f.store_id = k.store_id AND f.email = k.email
  LEFT JOIN per_currency pc ON pc.store_id = k.store_id AND pc.email = k.email AND pc.currency = l.currency
  LEFT JOIN refunded rf ON rf.store_id = k.store_id AND rf.email = k.email AND rf.currency = l.currency
  LEFT JOIN refunded_any ra ON ra.store_id = k.store_id AND ra.email = k.email
  LEFT JOIN spent s ON s.store_id = k.store_id AND s.email = k.email
)
SELECT
  store_id,
  email,
  coalesce(customer_first_name, nullif(btrim(order_billing->>'first_name'), '')) AS firstname,
  coalesce(customer_last_name, nullif(btrim(order_billing->>'last_name'), '')) AS lastname,
  nullif(btrim(coalesce(customer_address, order_billing)->>'address_1'), '') AS address1,
  nullif(btrim(coalesce(customer_address, order_billing)->>'address_2'), '') AS address2,
  nullif(btrim(coalesce(customer_address, order_billing)->>'city'), '') AS city,
  nullif(btrim(coalesce(customer_address, order_billing)->>'state'), '') AS state,
  nullif(btrim(coalesce(customer_address, order_billing)->>'postcode'), '') AS zipcode,
  nullif(btrim(coalesce(customer_address, order_billing)->>'country'), '') AS country,
  coalesce(nullif(btrim(customer_billing->>'phone'), ''), nullif(btrim(order_billing->>'phone'), '')) AS phone,
  is_customer,
  coalesce(orders_count, 0) AS orders_count,
  currency,
  coalesce(total_spent, 0)::numeric AS total_spent,
  refunded_total::numeric AS refunded_total,
  spent_by_currency,
  first_order_day,
  last_order_day,
  array_remove(ARRAY[
    CASE WHEN is_customer THEN 'customer' END,
    CASE WHEN orders_count >= 2 THEN 'repeat-buyer' END,
    CASE WHEN refunded_any > 0 THEN 'refunded' END
  ], NULL) AS tags
FROM joined;

COMMENT ON VIEW analytics.marketing_contacts IS
  'One marketing contact per store and lower-cased email: registered customers and billing emails of counted orders, with names, address, phone and commerce facts.';

COMMENT ON COLUMN analytics.marketing_contacts.store_id IS 'The shopsync store id (STORE_ID).';
COMMENT ON COLUMN analytics.marketing_contacts.email IS 'The contact''s key: a registered customer''s or a counted order''s billing email, trimmed and lower-cased.';
COMMENT ON COLUMN analytics.marketing_contacts.firstname IS 'The customer''s first name, else the latest counted order''s billing first name.';
COMMENT ON COLUMN analytics.marketing_contacts.lastname IS 'The customer''s last name, else the latest counted order''s billing last name.';
COMMENT ON COLUMN analytics.marketing_contacts.address1 IS 'Billing address_1: the customer''s (when it has a street or a city), else the latest counted order''s.';
COMMENT ON COLUMN analytics.marketing_contacts.address2 IS 'Billing address_2, from the same address as address1.';
COMMENT ON COLUMN analytics.marketing_contacts.city IS 'Billing city, from the same address as address1.';
COMMENT ON COLUMN analytics.marketing_contacts.state IS 'Billing state (code or name), from the same address as address1.';
COMMENT ON COLUMN analytics.marketing_contacts.zipcode IS 'Billing postcode, from the same address as address1.';
COMMENT ON COLUMN analytics.marketing_contacts.country IS 'Billing country (ISO 3166-1 alpha-2), from the same address as address1.';
COMMENT ON COLUMN analytics.marketing_contacts.phone IS 'The customer''s billing phone, else the latest counted order''s.';
COMMENT ON COLUMN analytics.marketing_contacts.is_customer IS 'A registered customer whose role is one of SHOPSYNC_CONTACT_ROLES (default customer, subscriber).';
COMMENT ON COLUMN analytics.marketing_contacts.orders_count IS 'Counted orders billed to this email (status processing, completed, on-hold or refunded, not deleted).';
COMMENT ON COLUMN analytics.marketing_contacts.currency IS 'The currency of the latest counted order, ISO 4217: total_spent and refunded_total are in it; NULL without orders.';
COMMENT ON COLUMN analytics.marketing_contacts.total_spent IS 'Sum of the `total` of the counted orders in currency (tax and shipping included); numeric; 0 without orders.';
COMMENT ON COLUMN analytics.marketing_contacts.refunded_total IS 'Sum of the counted refunds of those orders in currency; numeric.';
COMMENT ON COLUMN analytics.marketing_contacts.spent_by_currency IS 'Every currency''s order total as text, e.g. ''EUR 10.00; USD 25.50''; NULL without orders.';
COMMENT ON COLUMN analytics.marketing_contacts.first_order_day IS 'The store-local day of the first counted order.';
COMMENT ON COLUMN analytics.marketing_contacts.last_order_day IS 'The store-local day of the latest counted order.';
COMMENT ON COLUMN analytics.marketing_contacts.tags IS 'customer (registered), repeat-buyer (2 or more counted orders), refunded (any counted refund).';
