-- A schema that explains itself: a comment on every table and column of the schemas store, sync, marketing and
-- analytics, for readers who see the database alone (psql's \d+, BI tools that show comments). The views and
-- functions of sql/models/ carry their comments in their own files (re-creating a view drops them), and
-- test/e2e/schema-comments.test.ts fails on any table, view, column or function left without one.
-- Also: store.stores, each store's currency and the UTC offsets seen on its orders (the stream store_profile
-- fills it), and analytics.stores, the same for consumers.
--
-- Conventions in the comments: "API `x`" is the field of the store's REST API document the column is read
-- from; money is numeric (exact), in the currency named (an order's `currency`, else the store's); a "UTC"
-- timestamp is an instant (timestamptz, from the API's *_gmt field); a "store-local" time or day is the store's
-- wall clock as the API's non-GMT field gives it (the site timezone, which the API does not name: see
-- store.stores.utc_offsets).

CREATE TABLE store.stores (
  store_id         text        PRIMARY KEY,
  currency         text,
  currency_source  text        NOT NULL,
  utc_offsets      text[]      NOT NULL,
  offsets_orders   integer     NOT NULL,
  recorded_at      timestamptz NOT NULL DEFAULT now()
);

-- The same for consumers, who read the analytics schema. A view of a migration, not of sql/models/: the
-- models must also build on warehouses that predate this table.
CREATE VIEW analytics.stores AS
SELECT store_id, currency, utc_offsets, recorded_at FROM store.stores;

COMMENT ON TABLE store.stores IS
  'One row per store: its currency and the UTC offsets of its timezone seen on its orders, recorded by the stream store_profile (daily). The API does not name the site timezone (an IANA name such as Europe/Paris): what defines store-local days is known only through the offsets its dates carry.';
COMMENT ON COLUMN store.stores.store_id IS 'The shopsync store id (STORE_ID).';
COMMENT ON COLUMN store.stores.currency IS
  'The store''s currency, ISO 4217 code (API GET /data/currencies/current `code`, the woocommerce_currency setting); else the currency of its latest order; NULL when neither is known. An order keeps the currency it was placed in (store.orders.currency).';
COMMENT ON COLUMN store.stores.currency_source IS
  'Where currency comes from: ''GET /data/currencies/current'', ''latest order'' (the store does not serve the route, or not to this key), or ''none'' (neither).';
COMMENT ON COLUMN store.stores.utc_offsets IS
  'The distinct UTC offsets (+HH:MM, local minus UTC) of the store''s timezone seen on its orders created in the year up to the latest one (API date_created minus date_created_gmt): one offset for a timezone without daylight saving time, two for one with it. Store-local days (the `day` and `created_day` columns) are UTC instants shifted by these offsets. Empty before the first order.';
COMMENT ON COLUMN store.stores.offsets_orders IS 'How many orders utc_offsets was read from.';
COMMENT ON COLUMN store.stores.recorded_at IS 'When the sync recorded this row (UTC).';

COMMENT ON VIEW analytics.stores IS
  'One row per store: its currency and the UTC offsets of its timezone, which define the store-local `day` of the daily views (store.stores).';
COMMENT ON COLUMN analytics.stores.store_id IS 'The shopsync store id (STORE_ID).';
COMMENT ON COLUMN analytics.stores.currency IS
  'The store''s currency, ISO 4217 (API GET /data/currencies/current, else its latest order''s); orders placed in another currency keep theirs.';
COMMENT ON COLUMN analytics.stores.utc_offsets IS
  'UTC offsets (+HH:MM) of the store''s timezone seen on its orders of the last year: a store-local day runs from 00:00 to 24:00 at these offsets. The API does not name the timezone itself.';
COMMENT ON COLUMN analytics.stores.recorded_at IS 'When the sync recorded it (UTC).';

COMMENT ON SCHEMA store IS 'The store''s data as its REST API serves it, normalized: one row per document, keyed by (store_id, id) or (store_id, scope, key).';
COMMENT ON SCHEMA sync IS 'The sync''s own bookkeeping: cursors, runs, queues of changed days, the resource tables'' common shape and merge functions.';
COMMENT ON SCHEMA analytics IS 'What consumers query: counted orders and refunds, per-day sales, the reconciliation with the store''s report, marketing contacts, stores.';
COMMENT ON SCHEMA marketing IS 'The marketing push''s outbox: each contact''s last derived state and what the marketing service last accepted.';

-- Columns every table of a family shares, one text each.
DO $$
DECLARE
  c record;
BEGIN
  FOR c IN
    SELECT a.attrelid::regclass AS tbl, a.attname AS col
    FROM pg_attribute a JOIN pg_class k ON k.oid = a.attrelid JOIN pg_namespace n ON n.oid = k.relnamespace
    WHERE n.nspname IN ('store', 'sync', 'analytics', 'marketing') AND k.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
      AND a.attname = 'store_id'
  LOOP
    EXECUTE format('COMMENT ON COLUMN %s.%I IS %L', c.tbl, c.col,
      'The shopsync store id (STORE_ID) the row belongs to: several stores can share one warehouse.');
  END LOOP;
END $$;

-- The tables of migration 004 (sync.resource_rows and those made LIKE it).
DO $$
DECLARE
  t regclass;
BEGIN
  FOR t IN
    SELECT a.attrelid::regclass FROM pg_attribute a JOIN pg_class k ON k.oid = a.attrelid JOIN pg_namespace n ON n.oid = k.relnamespace
    WHERE n.nspname IN ('store', 'sync') AND k.relkind = 'r' AND a.attname = 'doc_hash'
      AND EXISTS (SELECT 1 FROM pg_attribute s WHERE s.attrelid = a.attrelid AND s.attname = 'scope')
  LOOP
    EXECUTE format('COMMENT ON COLUMN %s.scope IS %L', t,
      'The request the document came from: the parent''s id for a child resource, the endpoint or period for a fixed family, '''' for a plain list.');
    EXECUTE format('COMMENT ON COLUMN %s.key IS %L', t, 'The document''s identity within its scope: its id, slug or code (as text).');
    EXECUTE format('COMMENT ON COLUMN %s.doc IS %L', t, 'The API document as the store sent it, every field kept (NUL characters removed).');
    EXECUTE format('COMMENT ON COLUMN %s.doc_hash IS %L', t, 'md5 of doc''s JSON text: a refresh rewrites a row only when it changes.');
    EXECUTE format('COMMENT ON COLUMN %s.first_seen_at IS %L', t, 'When the warehouse first saw the document (UTC).');
    EXECUTE format('COMMENT ON COLUMN %s.changed_at IS %L', t, 'When the document last changed, or came back after being gone (UTC).');
    EXECUTE format('COMMENT ON COLUMN %s.deleted_at IS %L', t,
      'When a refresh found the document gone (its GET answering 404 where paging could hide it, or its parent gone), UTC; NULL while the store has it.');
  END LOOP;
END $$;

-- The sales tables of migration 001 that keep the store's document and mark deletions.
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['store.orders', 'store.refunds', 'store.customers', 'store.products', 'store.product_variations'] LOOP
    EXECUTE format('COMMENT ON COLUMN %s.doc IS %L', t, 'The API document as the store sent it, every field kept (NUL characters removed).');
    EXECUTE format('COMMENT ON COLUMN %s.synced_at IS %L', t, 'When the sync last wrote the row (UTC).');
    EXECUTE format('COMMENT ON COLUMN %s.deleted_at IS %L', t,
      'When the sync found the document gone from the store (a forced delete: its GET answered 404), UTC; NULL while the store has it. Deleted rows never count.');
  END LOOP;
  FOREACH t IN ARRAY ARRAY['store.order_line_items', 'store.order_tax_lines', 'store.order_shipping_lines', 'store.order_fee_lines',
                           'store.order_coupon_lines', 'store.refund_line_items'] LOOP
    EXECUTE format('COMMENT ON COLUMN %s.doc IS %L', t, 'The line as the API sent it inside its parent''s document.');
  END LOOP;
END $$;

-- store.orders
COMMENT ON TABLE store.orders IS
  'Orders (GET /orders with status any, then trash; cursor on date_modified_gmt), one row per store and order id. Money is numeric in the order''s `currency`. analytics.counted_orders says which orders count as sales.';
COMMENT ON COLUMN store.orders.id IS 'API `id`.';
COMMENT ON COLUMN store.orders.parent_id IS 'API `parent_id`: the order this one belongs to; 0 when none.';
COMMENT ON COLUMN store.orders.number IS 'API `number`: the order number shown to the customer.';
COMMENT ON COLUMN store.orders.status IS
  'API `status`: pending, processing, on-hold, completed, cancelled, refunded, failed or trash. Counted as a sale: processing, completed, on-hold, refunded.';
COMMENT ON COLUMN store.orders.currency IS 'API `currency`: ISO 4217 code of the order; every money column of the order and of its lines and refunds is in it.';
COMMENT ON COLUMN store.orders.created_via IS 'API `created_via`: how the order was made (checkout, admin, rest-api, …).';
COMMENT ON COLUMN store.orders.date_created IS 'When the order was created, UTC (API `date_created_gmt`).';
COMMENT ON COLUMN store.orders.date_created_local IS 'When the order was created, store-local wall clock without offset (API `date_created`, the site timezone).';
COMMENT ON COLUMN store.orders.created_day IS 'The store-local day of date_created_local (the store''s timezone; its UTC offsets: store.stores.utc_offsets): the day the order counts on in analytics.';
COMMENT ON COLUMN store.orders.date_modified IS 'When the order last changed, UTC (API `date_modified_gmt`): the sync''s cursor.';
COMMENT ON COLUMN store.orders.date_paid IS 'When it was paid, UTC (API `date_paid_gmt`); NULL if unpaid.';
COMMENT ON COLUMN store.orders.date_completed IS 'When it was completed, UTC (API `date_completed_gmt`); NULL if not completed.';
COMMENT ON COLUMN store.orders.customer_id IS 'API `customer_id`: the registered customer (store.customers.id); 0 for a guest.';
COMMENT ON COLUMN store.orders.billing_email IS 'API `billing.email`, trimmed; NULL when empty. The key of its marketing contact (lower-cased).';
COMMENT ON COLUMN store.orders.billing IS 'API `billing`: first_name, last_name, company, address_1, address_2, city, state, postcode, country (ISO 3166-1 alpha-2), email, phone.';
COMMENT ON COLUMN store.orders.shipping IS 'API `shipping`: the billing fields without email and phone.';
COMMENT ON COLUMN store.orders.payment_method IS 'API `payment_method`: the payment gateway''s id.';
COMMENT ON COLUMN store.orders.prices_include_tax IS 'API `prices_include_tax`: whether the prices entered included tax.';
COMMENT ON COLUMN store.orders.discount_total IS 'API `discount_total`: the discounts (coupons), excluding tax; numeric, order currency.';
COMMENT ON COLUMN store.orders.discount_tax IS 'API `discount_tax`: the tax part of the discounts; numeric, order currency.';
COMMENT ON COLUMN store.orders.shipping_total IS 'API `shipping_total`: shipping, excluding tax, after discounts; numeric, order currency.';
COMMENT ON COLUMN store.orders.shipping_tax IS 'API `shipping_tax`: tax on shipping; numeric, order currency.';
COMMENT ON COLUMN store.orders.cart_tax IS 'API `cart_tax`: tax on the line items only; numeric, order currency.';
COMMENT ON COLUMN store.orders.total IS
  'API `total`: what the customer pays, after discounts, including tax, shipping and fees; numeric, order currency. What analytics sums as gross_sales.';
COMMENT ON COLUMN store.orders.total_tax IS 'API `total_tax`: every tax of the order (cart_tax + shipping_tax); numeric, order currency.';

-- Order lines
COMMENT ON TABLE store.order_line_items IS 'The product lines of each order (API order `line_items`), replaced with their order on every sync of it. Money in the order''s currency.';
COMMENT ON COLUMN store.order_line_items.id IS 'API line `id`.';
COMMENT ON COLUMN store.order_line_items.order_id IS 'The order (store.orders.id).';
COMMENT ON COLUMN store.order_line_items.product_id IS 'API `product_id` (store.products.id).';
COMMENT ON COLUMN store.order_line_items.variation_id IS 'API `variation_id` (store.product_variations.id); NULL or 0 when the product has none.';
COMMENT ON COLUMN store.order_line_items.name IS 'API `name`: the product''s name at the time of the order.';
COMMENT ON COLUMN store.order_line_items.sku IS 'API `sku`.';
COMMENT ON COLUMN store.order_line_items.quantity IS 'API `quantity`: units; analytics'' items sums it.';
COMMENT ON COLUMN store.order_line_items.price IS 'API `price`: the unit price, excluding tax; numeric, order currency.';
COMMENT ON COLUMN store.order_line_items.subtotal IS 'API `subtotal`: the line before discounts, excluding tax; numeric, order currency.';
COMMENT ON COLUMN store.order_line_items.subtotal_tax IS 'API `subtotal_tax`: tax on subtotal; numeric, order currency.';
COMMENT ON COLUMN store.order_line_items.total IS 'API `total`: the line after discounts, excluding tax; numeric, order currency.';
COMMENT ON COLUMN store.order_line_items.total_tax IS 'API `total_tax`: tax on total; numeric, order currency.';

COMMENT ON TABLE store.order_tax_lines IS 'The taxes of each order, one line per tax rate (API order `tax_lines`), replaced with their order. Money in the order''s currency.';
COMMENT ON COLUMN store.order_tax_lines.id IS 'API tax line `id`.';
COMMENT ON COLUMN store.order_tax_lines.order_id IS 'The order (store.orders.id).';
COMMENT ON COLUMN store.order_tax_lines.rate_code IS 'API `rate_code`, e.g. US-CA-TAX-1.';
COMMENT ON COLUMN store.order_tax_lines.rate_id IS 'API `rate_id` (store.tax_rates.id).';
COMMENT ON COLUMN store.order_tax_lines.label IS 'API `label`: the tax''s name.';
COMMENT ON COLUMN store.order_tax_lines.compound IS 'API `compound`: applied on top of the other taxes.';
COMMENT ON COLUMN store.order_tax_lines.tax_total IS 'API `tax_total`: tax on the items at this rate, excluding shipping taxes; numeric, order currency.';
COMMENT ON COLUMN store.order_tax_lines.shipping_tax_total IS 'API `shipping_tax_total`: tax on shipping at this rate; numeric, order currency.';

COMMENT ON TABLE store.order_shipping_lines IS 'The shipping of each order (API order `shipping_lines`), replaced with their order. Money in the order''s currency.';
COMMENT ON COLUMN store.order_shipping_lines.id IS 'API shipping line `id`.';
COMMENT ON COLUMN store.order_shipping_lines.order_id IS 'The order (store.orders.id).';
COMMENT ON COLUMN store.order_shipping_lines.method_id IS 'API `method_id`: the shipping method (flat_rate, free_shipping, …).';
COMMENT ON COLUMN store.order_shipping_lines.method_title IS 'API `method_title`: its name as the customer saw it.';
COMMENT ON COLUMN store.order_shipping_lines.total IS 'API `total`: shipping after discounts, excluding tax; numeric, order currency.';
COMMENT ON COLUMN store.order_shipping_lines.total_tax IS 'API `total_tax`: tax on it; numeric, order currency.';

COMMENT ON TABLE store.order_fee_lines IS 'The fees of each order (API order `fee_lines`), replaced with their order. Money in the order''s currency.';
COMMENT ON COLUMN store.order_fee_lines.id IS 'API fee line `id`.';
COMMENT ON COLUMN store.order_fee_lines.order_id IS 'The order (store.orders.id).';
COMMENT ON COLUMN store.order_fee_lines.name IS 'API `name`: the fee''s name.';
COMMENT ON COLUMN store.order_fee_lines.tax_class IS 'API `tax_class`: its tax class slug.';
COMMENT ON COLUMN store.order_fee_lines.tax_status IS 'API `tax_status`: taxable or none.';
COMMENT ON COLUMN store.order_fee_lines.total IS 'API `total`: the fee, excluding tax; numeric, order currency.';
COMMENT ON COLUMN store.order_fee_lines.total_tax IS 'API `total_tax`: tax on it; numeric, order currency.';

COMMENT ON TABLE store.order_coupon_lines IS 'The coupons used by each order (API order `coupon_lines`), replaced with their order. Money in the order''s currency.';
COMMENT ON COLUMN store.order_coupon_lines.id IS 'API coupon line `id`.';
COMMENT ON COLUMN store.order_coupon_lines.order_id IS 'The order (store.orders.id).';
COMMENT ON COLUMN store.order_coupon_lines.code IS 'API `code`: the coupon code.';
COMMENT ON COLUMN store.order_coupon_lines.discount IS 'API `discount`: the discount it gave, excluding tax; numeric, order currency.';
COMMENT ON COLUMN store.order_coupon_lines.discount_tax IS 'API `discount_tax`: the tax part of it; numeric, order currency.';

-- Refunds
COMMENT ON TABLE store.refunds IS
  'Refunds (GET /refunds store-wide, cursor on date_created_gmt; or GET /orders/<id>/refunds on stores without it). `amount` is positive, in the order''s currency; a refund counts on its own store-local day (analytics.counted_refunds).';
COMMENT ON COLUMN store.refunds.id IS 'API `id`.';
COMMENT ON COLUMN store.refunds.order_id IS 'The refunded order (API `parent_id`; store.orders.id).';
COMMENT ON COLUMN store.refunds.date_created IS 'When the refund was made, UTC (API `date_created_gmt`).';
COMMENT ON COLUMN store.refunds.date_created_local IS 'When the refund was made, store-local wall clock without offset (API `date_created`).';
COMMENT ON COLUMN store.refunds.created_day IS 'The store-local day of date_created_local (the store''s timezone): the day the refund counts on in analytics (not its order''s day).';
COMMENT ON COLUMN store.refunds.amount IS 'API `amount`: the amount refunded, positive; numeric, the order''s currency.';
COMMENT ON COLUMN store.refunds.reason IS 'API `reason`.';
COMMENT ON COLUMN store.refunds.refunded_by IS 'API `refunded_by`: the user id of who made it.';
COMMENT ON COLUMN store.refunds.refunded_payment IS 'API `refunded_payment`: whether the payment gateway refunded the money.';

COMMENT ON TABLE store.refund_line_items IS 'The lines of each refund (API refund `line_items`; negative quantities and totals), replaced with their refund. Money in the order''s currency.';
COMMENT ON COLUMN store.refund_line_items.id IS 'API line `id`.';
COMMENT ON COLUMN store.refund_line_items.refund_id IS 'The refund (store.refunds.id).';
COMMENT ON COLUMN store.refund_line_items.product_id IS 'API `product_id`.';
COMMENT ON COLUMN store.refund_line_items.variation_id IS 'API `variation_id`; NULL or 0 when none.';
COMMENT ON COLUMN store.refund_line_items.name IS 'API `name`.';
COMMENT ON COLUMN store.refund_line_items.quantity IS 'API `quantity`: units returned, negative.';
COMMENT ON COLUMN store.refund_line_items.subtotal IS 'API `subtotal`: before discounts, excluding tax, negative; numeric, order currency.';
COMMENT ON COLUMN store.refund_line_items.total IS 'API `total`: after discounts, excluding tax, negative; numeric, order currency.';
COMMENT ON COLUMN store.refund_line_items.total_tax IS 'API `total_tax`, negative; numeric, order currency.';

-- Customers
COMMENT ON TABLE store.customers IS
  'Registered users of every role (GET /customers?role=all; no modified filter: new ones every run, a full scan with change detection every SHOPSYNC_CUSTOMERS_FULL_SCAN_HOURS).';
COMMENT ON COLUMN store.customers.id IS 'API `id` (the user id; store.orders.customer_id).';
COMMENT ON COLUMN store.customers.email IS 'API `email`, trimmed; NULL when empty.';
COMMENT ON COLUMN store.customers.first_name IS 'API `first_name`.';
COMMENT ON COLUMN store.customers.last_name IS 'API `last_name`.';
COMMENT ON COLUMN store.customers.username IS 'API `username`: the login name.';
COMMENT ON COLUMN store.customers.role IS 'API `role`: customer, subscriber, administrator, shop_manager, …';
COMMENT ON COLUMN store.customers.is_paying_customer IS 'API `is_paying_customer`.';
COMMENT ON COLUMN store.customers.date_created IS 'When the user registered, UTC (API `date_created_gmt`).';
COMMENT ON COLUMN store.customers.date_modified IS 'When the user last changed, UTC (API `date_modified_gmt`).';
COMMENT ON COLUMN store.customers.billing IS 'API `billing`: the order billing fields (country an ISO code).';
COMMENT ON COLUMN store.customers.shipping IS 'API `shipping`.';
COMMENT ON COLUMN store.customers.doc_hash IS 'md5 of doc''s JSON text: the full scan rewrites a customer only when it changes.';

-- Products and variations
COMMENT ON TABLE store.products IS 'Products (GET /products, any status and trash; cursor on date_modified_gmt). Prices are numeric in the store''s currency (store.stores).';
COMMENT ON COLUMN store.products.id IS 'API `id`.';
COMMENT ON COLUMN store.products.parent_id IS 'API `parent_id`; 0 when none.';
COMMENT ON COLUMN store.products.name IS 'API `name`.';
COMMENT ON COLUMN store.products.slug IS 'API `slug`.';
COMMENT ON COLUMN store.products.sku IS 'API `sku`; NULL when empty.';
COMMENT ON COLUMN store.products.type IS 'API `type`: simple, grouped, external or variable.';
COMMENT ON COLUMN store.products.status IS 'API `status`: draft, pending, private, publish or trash.';
COMMENT ON COLUMN store.products.price IS 'API `price`: the current price (the sale price while on sale); numeric, store currency; NULL when empty.';
COMMENT ON COLUMN store.products.regular_price IS 'API `regular_price`; numeric, store currency; NULL when empty.';
COMMENT ON COLUMN store.products.sale_price IS 'API `sale_price`; numeric, store currency; NULL when not on sale.';
COMMENT ON COLUMN store.products.stock_quantity IS 'API `stock_quantity`: units in stock; NULL when stock is not managed.';
COMMENT ON COLUMN store.products.stock_status IS 'API `stock_status`: instock, outofstock or onbackorder.';
COMMENT ON COLUMN store.products.date_created IS 'When the product was created, UTC (API `date_created_gmt`).';
COMMENT ON COLUMN store.products.date_modified IS 'When it last changed, UTC (API `date_modified_gmt`): the sync''s cursor.';

COMMENT ON TABLE store.product_variations IS 'Variations of variable products (GET /products/<id>/variations). Prices are numeric in the store''s currency.';
COMMENT ON COLUMN store.product_variations.id IS 'API `id`.';
COMMENT ON COLUMN store.product_variations.product_id IS 'The variable product (store.products.id).';
COMMENT ON COLUMN store.product_variations.sku IS 'API `sku`; NULL when empty.';
COMMENT ON COLUMN store.product_variations.status IS 'API `status`.';
COMMENT ON COLUMN store.product_variations.price IS 'API `price`; numeric, store currency; NULL when empty.';
COMMENT ON COLUMN store.product_variations.regular_price IS 'API `regular_price`; numeric, store currency.';
COMMENT ON COLUMN store.product_variations.sale_price IS 'API `sale_price`; numeric, store currency; NULL when not on sale.';
COMMENT ON COLUMN store.product_variations.stock_quantity IS 'API `stock_quantity`; NULL when stock is not managed.';
COMMENT ON COLUMN store.product_variations.stock_status IS 'API `stock_status`.';
COMMENT ON COLUMN store.product_variations.date_created IS 'UTC (API `date_created_gmt`).';
COMMENT ON COLUMN store.product_variations.date_modified IS 'UTC (API `date_modified_gmt`).';

-- The store's own sales report
COMMENT ON TABLE store.sales_report_daily IS
  'The store''s own sales report (GET /reports/sales?date_min&date_max, its `totals` by day), one row per store-local day; fetched again for the days a run changed. Every currency summed together as plain numbers.';
COMMENT ON COLUMN store.sales_report_daily.day IS 'The store-local day (the report''s `totals` key; the store''s timezone).';
COMMENT ON COLUMN store.sales_report_daily.sales IS 'Report `sales`: the order totals of the day (tax and shipping included), numeric, every currency summed.';
COMMENT ON COLUMN store.sales_report_daily.orders IS 'Report `orders`: orders of the day (statuses completed, processing, on-hold, refunded).';
COMMENT ON COLUMN store.sales_report_daily.items IS 'Report `items`: units sold.';
COMMENT ON COLUMN store.sales_report_daily.tax IS 'Report `tax`; numeric.';
COMMENT ON COLUMN store.sales_report_daily.shipping IS 'Report `shipping`; numeric.';
COMMENT ON COLUMN store.sales_report_daily.discount IS 'Report `discount`; numeric.';
COMMENT ON COLUMN store.sales_report_daily.customers IS 'Report `customers`: customers who registered that day.';
COMMENT ON COLUMN store.sales_report_daily.refunds IS 'Report `refunds`: refunds made that day, numeric; NULL from stores whose report has no such field.';
COMMENT ON COLUMN store.sales_report_daily.fetched_at IS 'When the report was fetched (UTC): a later change to the day''s orders is not in it.';

-- Documents set aside
COMMENT ON TABLE store.quarantine IS
  'Documents the sync could not take (they do not fit the stream''s schema, or PostgreSQL refused them), set aside while the rest loads; read again by id each run until they land or the store answers 404.';
COMMENT ON COLUMN store.quarantine.stream IS 'The resource it belongs to: orders, refunds, products, variations, customers.';
COMMENT ON COLUMN store.quarantine.id IS 'The document''s id as the store sent it ('''' when it had none).';
COMMENT ON COLUMN store.quarantine.kind IS 'invalid: it does not fit the stream''s schema; load: PostgreSQL refused it.';
COMMENT ON COLUMN store.quarantine.reason IS 'Why, in one line.';
COMMENT ON COLUMN store.quarantine.doc IS 'The document as last received, as JSON text (NUL characters escaped).';
COMMENT ON COLUMN store.quarantine.path IS 'The single GET that reads it again; NULL when the sync cannot tell (a refund without its order).';
COMMENT ON COLUMN store.quarantine.first_seen IS 'When it was first set aside (UTC).';
COMMENT ON COLUMN store.quarantine.last_seen IS 'When it was last read and set aside (UTC).';
COMMENT ON COLUMN store.quarantine.attempts IS 'Times it was read and set aside.';

COMMENT ON TABLE store.cleaned IS 'Documents that held NUL characters (PostgreSQL''s text and jsonb cannot) and were stored without them.';
COMMENT ON COLUMN store.cleaned.stream IS 'The resource it belongs to.';
COMMENT ON COLUMN store.cleaned.id IS 'The document''s id.';
COMMENT ON COLUMN store.cleaned.first_seen IS 'When it was first cleaned (UTC).';
COMMENT ON COLUMN store.cleaned.last_seen IS 'When it was last cleaned (UTC).';
COMMENT ON COLUMN store.cleaned.times IS 'Times it was cleaned.';

-- The resource tables' own columns (their tables carry their endpoint and strategy since migration 004).
COMMENT ON COLUMN store.tax_rates.id IS 'API `id`.';
COMMENT ON COLUMN store.tax_rates.country IS 'API `country`: ISO 3166 code; NULL for every country.';
COMMENT ON COLUMN store.tax_rates.state IS 'API `state`: state code; NULL for every state.';
COMMENT ON COLUMN store.tax_rates.rate IS 'API `rate`: percent, numeric (20.0000 is 20 %).';
COMMENT ON COLUMN store.tax_rates.name IS 'API `name`.';
COMMENT ON COLUMN store.tax_rates.priority IS 'API `priority`: one matching rate per priority applies.';
COMMENT ON COLUMN store.tax_rates.compound IS 'API `compound`: applied on top of other rates.';
COMMENT ON COLUMN store.tax_rates.shipping IS 'API `shipping`: also applies to shipping.';
COMMENT ON COLUMN store.tax_rates.tax_class IS 'API `class`: the tax class slug.';
COMMENT ON COLUMN store.tax_classes.slug IS 'API `slug`.';
COMMENT ON COLUMN store.tax_classes.name IS 'API `name`.';
COMMENT ON COLUMN store.product_reviews.id IS 'API `id`.';
COMMENT ON COLUMN store.product_reviews.product_id IS 'API `product_id`: the reviewed product.';
COMMENT ON COLUMN store.product_reviews.status IS 'API `status`: approved, hold, spam or trash.';
COMMENT ON COLUMN store.product_reviews.reviewer IS 'API `reviewer`: the reviewer''s name.';
COMMENT ON COLUMN store.product_reviews.reviewer_email IS 'API `reviewer_email`.';
COMMENT ON COLUMN store.product_reviews.rating IS 'API `rating`: 0 to 5.';
COMMENT ON COLUMN store.product_reviews.verified IS 'API `verified`: the reviewer bought the product.';
COMMENT ON COLUMN store.product_reviews.date_created IS 'UTC (API `date_created_gmt`).';
COMMENT ON COLUMN store.product_attributes.id IS 'API `id`.';
COMMENT ON COLUMN store.product_attributes.name IS 'API `name`.';
COMMENT ON COLUMN store.product_attributes.slug IS 'API `slug`.';
COMMENT ON COLUMN store.product_attributes.type IS 'API `type`.';
COMMENT ON COLUMN store.product_attributes.order_by IS 'API `order_by`: how its terms are sorted.';
COMMENT ON COLUMN store.product_attributes.has_archives IS 'API `has_archives`.';
COMMENT ON COLUMN store.attribute_terms.attribute_id IS 'The attribute (the scope; store.product_attributes.id).';
COMMENT ON COLUMN store.attribute_terms.id IS 'API `id`.';
COMMENT ON COLUMN store.attribute_terms.name IS 'API `name`.';
COMMENT ON COLUMN store.attribute_terms.slug IS 'API `slug`.';
COMMENT ON COLUMN store.attribute_terms.menu_order IS 'API `menu_order`.';
COMMENT ON COLUMN store.attribute_terms.count IS 'API `count`: products using the term.';
COMMENT ON COLUMN store.product_categories.id IS 'API `id`.';
COMMENT ON COLUMN store.product_categories.name IS 'API `name`.';
COMMENT ON COLUMN store.product_categories.slug IS 'API `slug`.';
COMMENT ON COLUMN store.product_categories.parent IS 'API `parent`: the parent category''s id; 0 at the top.';
COMMENT ON COLUMN store.product_categories.display IS 'API `display`.';
COMMENT ON COLUMN store.product_categories.menu_order IS 'API `menu_order`.';
COMMENT ON COLUMN store.product_categories.count IS 'API `count`: products in it.';
COMMENT ON COLUMN store.shipping_classes.id IS 'API `id`.';
COMMENT ON COLUMN store.shipping_classes.name IS 'API `name`.';
COMMENT ON COLUMN store.shipping_classes.slug IS 'API `slug`.';
COMMENT ON COLUMN store.shipping_classes.count IS 'API `count`: products in it.';
COMMENT ON COLUMN store.shipping_zones.id IS 'API `id`; zone 0 covers the locations no other zone does.';
COMMENT ON COLUMN store.shipping_zones.name IS 'API `name`.';
COMMENT ON COLUMN store.shipping_zones."order" IS 'API `order`: its position among the zones.';
COMMENT ON COLUMN store.shipping_zone_methods.zone_id IS 'The zone (the scope; store.shipping_zones.id).';
COMMENT ON COLUMN store.shipping_zone_methods.instance_id IS 'API `instance_id`: the method''s id within the store (the key).';
COMMENT ON COLUMN store.shipping_zone_methods.method_id IS 'API `method_id`: flat_rate, free_shipping, local_pickup, …';
COMMENT ON COLUMN store.shipping_zone_methods.title IS 'API `title`.';
COMMENT ON COLUMN store.shipping_zone_methods.enabled IS 'API `enabled`.';
COMMENT ON COLUMN store.shipping_zone_methods."order" IS 'API `order`.';
COMMENT ON COLUMN store.order_notes.order_id IS 'The order (the scope; store.orders.id).';
COMMENT ON COLUMN store.order_notes.id IS 'API `id`.';
COMMENT ON COLUMN store.order_notes.author IS 'API `author`.';
COMMENT ON COLUMN store.order_notes.note IS 'API `note`: its text.';
COMMENT ON COLUMN store.order_notes.customer_note IS 'API `customer_note`: shown to the customer.';
COMMENT ON COLUMN store.order_notes.date_created IS 'UTC (API `date_created_gmt`).';
COMMENT ON COLUMN store.customer_downloads.customer_id IS 'The customer (the scope; store.customers.id).';
COMMENT ON COLUMN store.customer_downloads.download_id IS 'API `download_id`: the file''s id (MD5).';
COMMENT ON COLUMN store.customer_downloads.order_id IS 'API `order_id`: the order that granted it.';
COMMENT ON COLUMN store.customer_downloads.product_id IS 'API `product_id`.';
COMMENT ON COLUMN store.customer_downloads.download_name IS 'API `download_name`.';
COMMENT ON COLUMN store.customer_downloads.downloads_remaining IS 'API `downloads_remaining`: a number, or unlimited (text, as sent).';
COMMENT ON COLUMN store.customer_downloads.access_expires IS 'UTC (API `access_expires_gmt`); NULL when access never expires.';
COMMENT ON COLUMN store.settings.group_id IS 'The settings group (the scope): general, products, tax, …';
COMMENT ON COLUMN store.settings.id IS 'API `id`: the option''s name, e.g. woocommerce_currency.';
COMMENT ON COLUMN store.settings.label IS 'API `label`.';
COMMENT ON COLUMN store.settings.type IS 'API `type`: text, select, checkbox, …';
COMMENT ON COLUMN store.settings.value IS 'API `value`, as JSON.';
COMMENT ON COLUMN store.reference_data.code IS 'API `code` (a country, continent or currency code), else `slug` (the /data index).';
COMMENT ON COLUMN store.reference_data.name IS 'API `name`, else `description`.';
COMMENT ON COLUMN store.system_status_tools.id IS 'API `id`.';
COMMENT ON COLUMN store.system_status_tools.name IS 'API `name`.';
COMMENT ON COLUMN store.system_status_tools.action IS 'API `action`: the button''s label.';
COMMENT ON COLUMN store.system_status_tools.description IS 'API `description`.';
COMMENT ON COLUMN store.webhooks.id IS 'API `id`.';
COMMENT ON COLUMN store.webhooks.name IS 'API `name`.';
COMMENT ON COLUMN store.webhooks.status IS 'API `status`: active, paused or disabled.';
COMMENT ON COLUMN store.webhooks.topic IS 'API `topic`, e.g. order.created.';
COMMENT ON COLUMN store.webhooks.delivery_url IS 'API `delivery_url`.';
COMMENT ON COLUMN store.webhooks.date_created IS 'UTC (API `date_created_gmt`).';
COMMENT ON COLUMN store.webhooks.date_modified IS 'UTC (API `date_modified_gmt`).';
COMMENT ON COLUMN store.report_top_sellers.period IS 'The report''s period (the scope): week, month, last_month or year.';
COMMENT ON COLUMN store.report_top_sellers.product_id IS 'API `product_id`.';
COMMENT ON COLUMN store.report_top_sellers.name IS 'API `name` (`title` in older stores).';
COMMENT ON COLUMN store.report_top_sellers.quantity IS 'API `quantity`: units sold in the period.';
COMMENT ON COLUMN store.report_totals.report IS 'The report (the scope): coupons, customers, orders, products or reviews.';
COMMENT ON COLUMN store.report_totals.slug IS 'API `slug`: the type or status counted.';
COMMENT ON COLUMN store.report_totals.name IS 'API `name`.';
COMMENT ON COLUMN store.report_totals.total IS 'API `total`: how many, numeric.';

-- sync
COMMENT ON TABLE sync.resource_rows IS
  'The shape every resource table of migration 004 starts from (CREATE TABLE … (LIKE sync.resource_rows)); it holds no rows.';
COMMENT ON TABLE sync.state IS 'One row per store and stream (or a stream''s own part: orders.trash, orders.deletions, …): its cursor, standing and last run, as `shopsync status` shows them.';
COMMENT ON COLUMN sync.state.stream IS 'The stream (src/sync/catalogue.ts), or one of its parts (orders.trash, refunds.deletions, …).';
COMMENT ON COLUMN sync.state.cursor_at IS 'The cursor''s second (UTC): every row ordered at or before (cursor_at, cursor_id) is loaded.';
COMMENT ON COLUMN sync.state.cursor_id IS 'The cursor''s id within cursor_at.';
COMMENT ON COLUMN sync.state.details IS 'The stream''s other bookkeeping (JSON): slices, full passes, availability, refresh times.';
COMMENT ON COLUMN sync.state.rows_total IS 'Rows the stream has written over all runs.';
COMMENT ON COLUMN sync.state.last_run_id IS 'The last run (sync.runs.id) that ran the stream.';
COMMENT ON COLUMN sync.state.last_started_at IS 'When the stream last started (UTC).';
COMMENT ON COLUMN sync.state.last_success_at IS 'When it last ended without error (UTC).';
COMMENT ON COLUMN sync.state.last_rows IS 'Rows it wrote in its last run.';
COMMENT ON COLUMN sync.state.last_error IS 'Its last run''s error (or why the store does not serve it); NULL after a success.';
COMMENT ON COLUMN sync.state.updated_at IS 'When the row last changed (UTC).';

COMMENT ON TABLE sync.report_days IS
  'Store-local days whose figures changed since the store''s report for them was last fetched (written by triggers with the rows that changed them); the reports stream fetches them again.';
COMMENT ON COLUMN sync.report_days.day IS 'The store-local day.';

COMMENT ON TABLE sync.runs IS 'One row per sync or backfill invocation.';
COMMENT ON COLUMN sync.runs.id IS 'The run''s id.';
COMMENT ON COLUMN sync.runs.command IS 'sync or backfill.';
COMMENT ON COLUMN sync.runs.streams IS 'The streams it was asked to run.';
COMMENT ON COLUMN sync.runs.started_at IS 'UTC.';
COMMENT ON COLUMN sync.runs.finished_at IS 'UTC; NULL while running (or when the process died).';
COMMENT ON COLUMN sync.runs.status IS 'running, succeeded or failed.';
COMMENT ON COLUMN sync.runs.rows IS 'Rows written by all its streams.';
COMMENT ON COLUMN sync.runs.requests IS 'Requests sent to the store, retries included.';
COMMENT ON COLUMN sync.runs.error IS 'Why it failed (stream: error; …); NULL otherwise.';

-- analytics' tables
COMMENT ON TABLE analytics.daily_totals IS
  'The stored per-day sums the daily views report (the sums of analytics.day_totals), per store, store-local day and currency; days in analytics.daily_dirty are computed afresh instead. Kept by each sync run''s end.';
COMMENT ON COLUMN analytics.daily_totals.day IS 'The store-local day, in the store''s timezone (orders by creation, refunds by their own day).';
COMMENT ON COLUMN analytics.daily_totals.currency IS 'The orders'' currency, ISO 4217: money columns are in it.';
COMMENT ON COLUMN analytics.daily_totals.orders_count IS 'Counted orders created that day.';
COMMENT ON COLUMN analytics.daily_totals.gross_sales IS 'Sum of those orders'' `total` (tax, shipping and fees included); numeric.';
COMMENT ON COLUMN analytics.daily_totals.discounts IS 'Sum of their discount_total; numeric.';
COMMENT ON COLUMN analytics.daily_totals.shipping IS 'Sum of their shipping_total (excluding tax); numeric.';
COMMENT ON COLUMN analytics.daily_totals.tax IS 'Sum of their total_tax; numeric.';
COMMENT ON COLUMN analytics.daily_totals.items IS 'Sum of their lines'' quantities.';
COMMENT ON COLUMN analytics.daily_totals.refunds_count IS 'Counted refunds made that day.';
COMMENT ON COLUMN analytics.daily_totals.refunds IS 'Sum of those refunds'' amounts; numeric.';

COMMENT ON TABLE analytics.daily_dirty IS
  'Days whose stored sums a write may have changed (noted by statement triggers on orders, lines and refunds); append-only, forgotten once a run stores the day.';
COMMENT ON COLUMN analytics.daily_dirty.day IS 'The store-local day.';

-- marketing
COMMENT ON TABLE marketing.outbox IS
  'The marketing push''s outbox: one row per store and contact email with the contact''s last derived state (from analytics.marketing_contacts) and what the marketing service last accepted; pending while they differ.';
COMMENT ON COLUMN marketing.outbox.email IS 'The contact''s key: trimmed and lower-cased.';
COMMENT ON COLUMN marketing.outbox.state IS 'The contact as the service receives it: field aliases with their values, and tags.';
COMMENT ON COLUMN marketing.outbox.state_hash IS 'md5 of state''s text.';
COMMENT ON COLUMN marketing.outbox.sent_hash IS 'state_hash of what the service last accepted; equal to state_hash when nothing is left to send.';
COMMENT ON COLUMN marketing.outbox.sent_at IS 'When the service last accepted it (UTC).';
COMMENT ON COLUMN marketing.outbox.contact_id IS 'The contact''s id in the marketing service.';
COMMENT ON COLUMN marketing.outbox.attempts IS 'Sends of the current state tried so far (reset when the state changes or failed rows are requeued).';
COMMENT ON COLUMN marketing.outbox.last_error IS 'The last failed send''s error.';
COMMENT ON COLUMN marketing.outbox.status IS 'pending, sent, failed or quarantined.';
COMMENT ON COLUMN marketing.outbox.reason IS 'Why a quarantined row is never sent (an email the service would refuse); NULL otherwise.';
COMMENT ON COLUMN marketing.outbox.enqueued_at IS 'When the current state was enqueued (UTC).';
COMMENT ON COLUMN marketing.outbox.updated_at IS 'When the row last changed (UTC).';

-- Functions of the migrations (the models' carry their own).
COMMENT ON FUNCTION sync.gmt(text) IS 'The API''s GMT date-time (YYYY-MM-DDTHH:MM:SS, no offset) as timestamptz; NULL for an empty value.';
COMMENT ON FUNCTION analytics.note_order_days() IS 'Trigger: notes the days of written orders (and of their refunds) in analytics.daily_dirty and sync.report_days.';
COMMENT ON FUNCTION analytics.note_refund_days() IS 'Trigger: notes the days of written refunds in analytics.daily_dirty and sync.report_days.';
COMMENT ON FUNCTION analytics.note_line_days() IS 'Trigger: notes the days of the orders of written order lines in analytics.daily_dirty and sync.report_days.';
