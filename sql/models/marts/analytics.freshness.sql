-- analytics.freshness: per store and stream, when it last succeeded, its cursor, and whether it is current, for a
-- dashboard's "data as of" and dbt's source freshness (docs/dbt/sources.yml). The reader role may not read sync.*:
-- a view reads its tables with its owner's rights, so this one shows the reader what it needs of them and nothing
-- more (never the registry's secrets). A stream is listed once a run has started it.
-- The rule for is_current: the last success is at most `current_within` old, the longer of twice the store's
-- interval (sync.store_registry.every for a registered store; 24 hours for one synced on a schedule shopsync does
-- not know, such as cron) and twice the stream's own refresh period (the defaults of src/sync/catalogue.ts, which
-- test/e2e/freshness.test.ts holds this list to; SHOPSYNC_REFRESH_HOURS overrides are not seen here).
CREATE OR REPLACE VIEW analytics.freshness AS
WITH streams AS (
  SELECT s.store_id, s.stream, s.last_success_at, s.cursor_at, s.cursor_id, s.last_error,
         CASE
           WHEN s.stream IN ('product_reviews', 'webhooks', 'report_totals') THEN 1
           WHEN s.stream IN ('tax_rates', 'tax_classes', 'product_attributes', 'product_categories', 'shipping_classes',
                             'shipping_zones', 'settings', 'reference_data', 'system_status_tools', 'report_top_sellers',
                             'store_profile') THEN 24
           ELSE 0
         END AS refresh_hours,
         r.every AS store_every
  FROM sync.state s
  LEFT JOIN sync.store_registry r ON r.store_id = s.store_id
  WHERE s.last_started_at IS NOT NULL
), rules AS (
  SELECT *, greatest(coalesce(2 * store_every, interval '24 hours'), make_interval(hours => 2 * refresh_hours)) AS current_within
  FROM streams
)
SELECT store_id,
       stream,
       last_success_at,
       (SELECT run.id FROM sync.runs run
        WHERE run.store_id = rules.store_id
          AND run.stream_results @> jsonb_build_array(jsonb_build_object('stream', rules.stream, 'outcome', 'done'))
        ORDER BY run.started_at DESC, run.id DESC LIMIT 1) AS last_success_run,
       cursor_at,
       cursor_id,
       round((extract(epoch FROM now() - last_success_at) / 3600)::numeric, 2) AS hours_since_success,
       refresh_hours,
       current_within,
       coalesce(last_success_at >= now() - current_within, false) AS is_current,
       last_error
FROM rules;

-- Its comments: sql/models/catalogue.json, applied by migrate after the models.
