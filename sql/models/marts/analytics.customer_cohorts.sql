-- analytics.customer_cohorts: customers grouped by the store-local month of their first counted order (any
-- currency), and what each cohort bought in each month since: one row per store, cohort month, month and currency
-- with a counted order (months without one have no row). Customers are as analytics.customer_orders says.
-- gross_revenue sums the month's orders' totals, refunds their counted refunds whenever made (a refund counts
-- against its order's month), net_revenue the difference. cohort_customers counts the cohort whatever the
-- currency, so active_customers / cohort_customers is the month's retention.
CREATE OR REPLACE VIEW analytics.customer_cohorts AS
WITH orders AS NOT MATERIALIZED (
  SELECT store_id, customer_key, currency, total, refunds, date_trunc('month', created_day)::date AS month
  FROM analytics.customer_orders
), firsts AS (
  SELECT store_id, customer_key, min(month) AS cohort_month
  FROM orders
  GROUP BY store_id, customer_key
), sizes AS (
  SELECT store_id, cohort_month, count(*)::integer AS cohort_customers
  FROM firsts
  GROUP BY store_id, cohort_month
)
SELECT f.store_id,
       f.cohort_month,
       o.month,
       ((extract(year FROM o.month) - extract(year FROM f.cohort_month)) * 12
         + extract(month FROM o.month) - extract(month FROM f.cohort_month))::integer AS months_since,
       o.currency,
       s.cohort_customers,
       count(DISTINCT o.customer_key)::integer AS active_customers,
       count(*)::integer AS orders_count,
       sum(o.total)::numeric AS gross_revenue,
       sum(o.refunds)::numeric AS refunds,
       (sum(o.total) - sum(o.refunds))::numeric AS net_revenue
FROM orders o
JOIN firsts f ON f.store_id = o.store_id AND f.customer_key = o.customer_key
JOIN sizes s ON s.store_id = f.store_id AND s.cohort_month = f.cohort_month
GROUP BY f.store_id, f.cohort_month, o.month, o.currency, s.cohort_customers;

-- Its comments: sql/models/catalogue.json, applied by migrate after the models.
