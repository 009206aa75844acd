-- The daily views as an incrementally maintained aggregate, so they answer from about one row per day
-- however many orders a store has.
--   analytics.daily_totals  the sums the daily views report, per store, store-local day and currency;
--   analytics.daily_dirty   days whose sums a write may have changed since they were stored, noted by
--                           statement triggers on the tables the sums come from (every write path);
-- the views read the stored sums of clean days and compute the dirty days from the tables (exact at
-- every moment: sql/models/analytics.daily_totals_current.sql), and each sync run stores its dirty days'
-- sums at its end (sql/models/analytics.refresh_daily_totals.sql).
-- The trigger functions stay here with their triggers: a trigger needs its function to exist.

CREATE TABLE analytics.daily_totals (
  store_id       text    NOT NULL,
  day            date    NOT NULL,
  currency       text    NOT NULL,
  orders_count   integer NOT NULL,
  gross_sales    numeric NOT NULL,
  discounts      numeric NOT NULL,
  shipping       numeric NOT NULL,
  tax            numeric NOT NULL,
  items          numeric NOT NULL,
  refunds_count  integer NOT NULL,
  refunds        numeric NOT NULL,
  PRIMARY KEY (store_id, day, currency)
);

-- Append-only, without a key: pages loading at once never wait on each other here; a day may be noted often.
CREATE TABLE analytics.daily_dirty (
  store_id  text NOT NULL,
  day       date NOT NULL
);
CREATE INDEX daily_dirty_idx ON analytics.daily_dirty (store_id, day);

-- An order counts on its creation day, with its lines; its refunds count (or stop counting) on theirs.
CREATE FUNCTION analytics.note_order_days() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO analytics.daily_dirty (store_id, day)
    SELECT DISTINCT store_id, day FROM (
      SELECT store_id, created_day AS day FROM new_rows
      UNION ALL
      SELECT r.store_id, r.created_day FROM store.refunds r JOIN new_rows o ON r.store_id = o.store_id AND r.order_id = o.id
    ) d;
  END IF;
  IF TG_OP <> 'INSERT' THEN
    INSERT INTO analytics.daily_dirty (store_id, day)
    SELECT DISTINCT store_id, day FROM (
      SELECT store_id, created_day AS day FROM old_rows
      UNION ALL
      SELECT r.store_id, r.created_day FROM store.refunds r JOIN old_rows o ON r.store_id = o.store_id AND r.order_id = o.id
    ) d;
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION analytics.note_refund_days() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO analytics.daily_dirty (store_id, day) SELECT DISTINCT store_id, created_day FROM new_rows;
  END IF;
  IF TG_OP <> 'INSERT' THEN
    INSERT INTO analytics.daily_dirty (store_id, day) SELECT DISTINCT store_id, created_day FROM old_rows;
  END IF;
  RETURN NULL;
END $$;

-- A line counts on its order's day.
CREATE FUNCTION analytics.note_line_days() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO analytics.daily_dirty (store_id, day)
    SELECT DISTINCT o.store_id, o.created_day
    FROM (SELECT DISTINCT store_id, order_id FROM new_rows) l JOIN store.orders o ON o.store_id = l.store_id AND o.id = l.order_id;
  END IF;
  IF TG_OP <> 'INSERT' THEN
    INSERT INTO analytics.daily_dirty (store_id, day)
    SELECT DISTINCT o.store_id, o.created_day
    FROM (SELECT DISTINCT store_id, order_id FROM old_rows) l JOIN store.orders o ON o.store_id = l.store_id AND o.id = l.order_id;
  END IF;
  RETURN NULL;
END $$;

-- Transition tables allow one event per trigger.
CREATE TRIGGER daily_days_insert AFTER INSERT ON store.orders REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION analytics.note_order_days();
CREATE TRIGGER daily_days_update AFTER UPDATE ON store.orders REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION analytics.note_order_days();
CREATE TRIGGER daily_days_delete AFTER DELETE ON store.orders REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION analytics.note_order_days();

CREATE TRIGGER daily_days_insert AFTER INSERT ON store.refunds REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION analytics.note_refund_days();
CREATE TRIGGER daily_days_update AFTER UPDATE ON store.refunds REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION analytics.note_refund_days();
CREATE TRIGGER daily_days_delete AFTER DELETE ON store.refunds REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION analytics.note_refund_days();

CREATE TRIGGER daily_days_insert AFTER INSERT ON store.order_line_items REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION analytics.note_line_days();
CREATE TRIGGER daily_days_update AFTER UPDATE ON store.order_line_items REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION analytics.note_line_days();
CREATE TRIGGER daily_days_delete AFTER DELETE ON store.order_line_items REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION analytics.note_line_days();

-- A warehouse that already holds orders: every day of it is dirty until the next run stores its sums.
INSERT INTO analytics.daily_dirty (store_id, day)
SELECT DISTINCT store_id, created_day FROM store.orders
UNION
SELECT DISTINCT store_id, created_day FROM store.refunds;
