-- analytics.daily_net_sales: the warehouse's headline figure, one row per (store, store-local day, currency)
-- with a counted order or refund. gross_sales sums the order `total` (which includes tax and shipping) of the
-- counted orders created that day; refunds sums the amounts of the counted refunds made that day (each on its
-- own day, not its order's); net_sales = gross_sales - refunds. Read from analytics.daily_totals_current, so it
-- answers from about one row per day. Its columns are a contract (test/e2e/migrate.test.ts checks them).
CREATE OR REPLACE VIEW analytics.daily_net_sales AS
SELECT store_id, day, currency, orders_count, gross_sales, refunds, (gross_sales - refunds)::numeric AS net_sales
FROM analytics.daily_totals_current;

-- Its comments: sql/models/catalogue.json (one text per shared column), applied by migrate after the models.
