-- analytics.daily_sales: analytics.daily_net_sales with the detail a finance reader asks for next. items,
-- discounts, shipping and tax are those of the day's counted orders (items sums their lines' quantities);
-- refunds_count counts the day's counted refunds. gross_sales and net_sales are daily_net_sales's.
CREATE OR REPLACE VIEW analytics.daily_sales AS
SELECT store_id, day, currency, orders_count, items, gross_sales, discounts, shipping, tax, refunds_count, refunds,
       (gross_sales - refunds)::numeric AS net_sales
FROM analytics.daily_totals_current;

-- Its comments: sql/models/catalogue.json (one text per shared column), applied by migrate after the models.
