-- analytics.note_days runs in every page's triggers, and PL/pgSQL plans its statement again at each call: with its
-- arrays' lengths known, a custom plan always looks cheaper than the generic one, so the cache never keeps one (0.95
-- ms of planning a call in the workers' benchmark, pg_stat_statements with track_planning, against 0.2 ms of
-- execution). Its plan does not depend on the values (a few keyed lookups per row): planned once per session.
ALTER FUNCTION analytics.note_days(analytics.sales_row[], analytics.sales_row[], analytics.sales_row[])
  SET plan_cache_mode = force_generic_plan;
