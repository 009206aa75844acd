-- Stores the sums of the days this store's run changed (see sql/analytics/015_daily_totals.sql).
SELECT analytics.refresh_daily_totals($1) AS days
