-- Days whose figures changed are noted by one writer, the statement triggers of migration 003, into two queues:
--   analytics.daily_dirty  (append-only) the days whose stored sums the run's end recomputes;
--   sync.report_days       (keyed)       the days whose store report the reports stream fetches again, kept
--                                        until a report covering them is stored (which may fail, or be left out).
-- The load scripts and the deletion marks no longer write sync.report_days themselves. The keyed insert is one
-- statement taking its days in order: pages load concurrently, and one order everywhere keeps them from deadlocking.

-- An order counts on its creation day, with its lines; its refunds count (or stop counting) on theirs.
CREATE OR REPLACE FUNCTION analytics.note_order_days() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    WITH days AS (SELECT store_id, created_day AS day FROM new_rows
                  UNION SELECT r.store_id, r.created_day FROM store.refunds r JOIN new_rows o ON r.store_id = o.store_id AND r.order_id = o.id),
         dirty AS (INSERT INTO analytics.daily_dirty (store_id, day) SELECT store_id, day FROM days)
    INSERT INTO sync.report_days (store_id, day) SELECT store_id, day FROM days ORDER BY day ON CONFLICT DO NOTHING;
  ELSIF TG_OP = 'DELETE' THEN
    WITH days AS (SELECT store_id, created_day AS day FROM old_rows
                  UNION SELECT r.store_id, r.created_day FROM store.refunds r JOIN old_rows o ON r.store_id = o.store_id AND r.order_id = o.id),
         dirty AS (INSERT INTO analytics.daily_dirty (store_id, day) SELECT store_id, day FROM days)
    INSERT INTO sync.report_days (store_id, day) SELECT store_id, day FROM days ORDER BY day ON CONFLICT DO NOTHING;
  ELSE
    WITH days AS (SELECT store_id, created_day AS day FROM new_rows
                  UNION SELECT r.store_id, r.created_day FROM store.refunds r JOIN new_rows o ON r.store_id = o.store_id AND r.order_id = o.id
                  UNION SELECT store_id, created_day AS day FROM old_rows
                  UNION SELECT r.store_id, r.created_day FROM store.refunds r JOIN old_rows o ON r.store_id = o.store_id AND r.order_id = o.id),
         dirty AS (INSERT INTO analytics.daily_dirty (store_id, day) SELECT store_id, day FROM days)
    INSERT INTO sync.report_days (store_id, day) SELECT store_id, day FROM days ORDER BY day ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;

-- A refund counts on its own day.
CREATE OR REPLACE FUNCTION analytics.note_refund_days() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    WITH days AS (SELECT store_id, created_day AS day FROM new_rows),
         dirty AS (INSERT INTO analytics.daily_dirty (store_id, day) SELECT store_id, day FROM days)
    INSERT INTO sync.report_days (store_id, day) SELECT store_id, day FROM days ORDER BY day ON CONFLICT DO NOTHING;
  ELSIF TG_OP = 'DELETE' THEN
    WITH days AS (SELECT store_id, created_day AS day FROM old_rows),
         dirty AS (INSERT INTO analytics.daily_dirty (store_id, day) SELECT store_id, day FROM days)
    INSERT INTO sync.report_days (store_id, day) SELECT store_id, day FROM days ORDER BY day ON CONFLICT DO NOTHING;
  ELSE
    WITH days AS (SELECT store_id, created_day AS day FROM new_rows
                  UNION SELECT store_id, created_day AS day FROM old_rows),
         dirty AS (INSERT INTO analytics.daily_dirty (store_id, day) SELECT store_id, day FROM days)
    INSERT INTO sync.report_days (store_id, day) SELECT store_id, day FROM days ORDER BY day ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;

-- A line counts on its order's day.
CREATE OR REPLACE FUNCTION analytics.note_line_days() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    WITH days AS (SELECT o.store_id, o.created_day AS day FROM (SELECT DISTINCT store_id, order_id FROM new_rows) l JOIN store.orders o ON o.store_id = l.store_id AND o.id = l.order_id),
         dirty AS (INSERT INTO analytics.daily_dirty (store_id, day) SELECT store_id, day FROM days)
    INSERT INTO sync.report_days (store_id, day) SELECT store_id, day FROM days ORDER BY day ON CONFLICT DO NOTHING;
  ELSIF TG_OP = 'DELETE' THEN
    WITH days AS (SELECT o.store_id, o.created_day AS day FROM (SELECT DISTINCT store_id, order_id FROM old_rows) l JOIN store.orders o ON o.store_id = l.store_id AND o.id = l.order_id),
         dirty AS (INSERT INTO analytics.daily_dirty (store_id, day) SELECT store_id, day FROM days)
    INSERT INTO sync.report_days (store_id, day) SELECT store_id, day FROM days ORDER BY day ON CONFLICT DO NOTHING;
  ELSE
    WITH days AS (SELECT o.store_id, o.created_day AS day FROM (SELECT DISTINCT store_id, order_id FROM new_rows) l JOIN store.orders o ON o.store_id = l.store_id AND o.id = l.order_id
                  UNION SELECT o.store_id, o.created_day AS day FROM (SELECT DISTINCT store_id, order_id FROM old_rows) l JOIN store.orders o ON o.store_id = l.store_id AND o.id = l.order_id),
         dirty AS (INSERT INTO analytics.daily_dirty (store_id, day) SELECT store_id, day FROM days)
    INSERT INTO sync.report_days (store_id, day) SELECT store_id, day FROM days ORDER BY day ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;
