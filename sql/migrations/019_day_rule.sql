-- The day rule, in one place: which store-local days the daily sums of a set of orders, refunds and order lines
-- depend on. analytics.day_totals sums by this rule (orders and their lines on the order's created_day, refunds on
-- their own), the triggers of 003/007 note changed days by it (they called it inline, once per kind and event),
-- and the declared test sql/models/tests/daily_marts_follow_the_day_rule.sql checks the marts' days against it.
-- `created_day` itself is the date of the API's non-GMT (store-local) wall-clock time (001): across DST the
-- wall clock is already local, so no timezone arithmetic is involved.

CREATE TYPE analytics.sales_row AS (store_id text, order_id bigint, day date);
COMMENT ON TYPE analytics.sales_row IS
  'A written row for analytics.sales_days: its store, its order (an order''s own id), and its own created_day (NULL for a line).';

CREATE FUNCTION analytics.sales_days(p_orders analytics.sales_row[], p_refunds analytics.sales_row[], p_lines analytics.sales_row[])
RETURNS TABLE (store_id text, day date) LANGUAGE sql STABLE AS $$
  -- An order counts on its own day ...
  SELECT o.store_id, o.day FROM unnest(p_orders) o
  -- ... and its refunds count only while it does, so their days depend on it too (deleted ones included: cheap, and safe).
  UNION SELECT r.store_id, r.created_day FROM unnest(p_orders) o JOIN store.refunds r ON r.store_id = o.store_id AND r.order_id = o.order_id
  -- A refund counts on its own day, not its order's.
  UNION SELECT r.store_id, r.day FROM unnest(p_refunds) r
  -- A line counts on its order's day.
  UNION SELECT o.store_id, o.created_day FROM (SELECT DISTINCT store_id, order_id FROM unnest(p_lines)) l
        JOIN store.orders o ON o.store_id = l.store_id AND o.id = l.order_id
$$;
COMMENT ON FUNCTION analytics.sales_days(analytics.sales_row[], analytics.sales_row[], analytics.sales_row[]) IS
  'The day rule: the store-local days whose sums depend on these orders (their own days and their refunds''), refunds (their own days, not their orders'') and lines (their orders'' days). The triggers note changed days by it; analytics.day_totals sums by it.';

-- The triggers' functions, now asking the rule. As in 007: one statement notes the days in analytics.daily_dirty
-- and sync.report_days, the keyed insert in day order (concurrent pages must not deadlock).
CREATE FUNCTION analytics.note_days(p_orders analytics.sales_row[], p_refunds analytics.sales_row[], p_lines analytics.sales_row[])
RETURNS void LANGUAGE sql AS $$
  WITH days AS (SELECT store_id, day FROM analytics.sales_days(p_orders, p_refunds, p_lines)),
       dirty AS (INSERT INTO analytics.daily_dirty (store_id, day) SELECT store_id, day FROM days)
  INSERT INTO sync.report_days (store_id, day) SELECT store_id, day FROM days ORDER BY day ON CONFLICT DO NOTHING
$$;
COMMENT ON FUNCTION analytics.note_days(analytics.sales_row[], analytics.sales_row[], analytics.sales_row[]) IS
  'Notes the days analytics.sales_days gives for these rows in analytics.daily_dirty and sync.report_days (the triggers'' one writer).';

-- Each trigger passes its transition tables' rows (new, old or both) as the one kind it fires for.
CREATE OR REPLACE FUNCTION analytics.note_order_days() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  written analytics.sales_row[] := '{}';
BEGIN
  IF TG_OP <> 'DELETE' THEN written := written || ARRAY(SELECT (store_id, id, created_day)::analytics.sales_row FROM new_rows); END IF;
  IF TG_OP <> 'INSERT' THEN written := written || ARRAY(SELECT (store_id, id, created_day)::analytics.sales_row FROM old_rows); END IF;
  PERFORM analytics.note_days(written, '{}', '{}');
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION analytics.note_refund_days() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  written analytics.sales_row[] := '{}';
BEGIN
  IF TG_OP <> 'DELETE' THEN written := written || ARRAY(SELECT (store_id, order_id, created_day)::analytics.sales_row FROM new_rows); END IF;
  IF TG_OP <> 'INSERT' THEN written := written || ARRAY(SELECT (store_id, order_id, created_day)::analytics.sales_row FROM old_rows); END IF;
  PERFORM analytics.note_days('{}', written, '{}');
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION analytics.note_line_days() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  written analytics.sales_row[] := '{}';
BEGIN
  IF TG_OP <> 'DELETE' THEN written := written || ARRAY(SELECT DISTINCT (store_id, order_id, NULL)::analytics.sales_row FROM new_rows); END IF;
  IF TG_OP <> 'INSERT' THEN written := written || ARRAY(SELECT DISTINCT (store_id, order_id, NULL)::analytics.sales_row FROM old_rows); END IF;
  PERFORM analytics.note_days('{}', '{}', written);
  RETURN NULL;
END $$;
