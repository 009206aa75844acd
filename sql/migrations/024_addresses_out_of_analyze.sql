-- ANALYZE leaves the addresses out too (issue 23), as migration 023 left the documents. `billing` and `shipping` of
-- orders and customers are objects of some 200–260 bytes; their statistics took more than half of an ANALYZE of
-- store.orders (20,000 orders: 750 → 340 ms), which a first sync or backfill runs at its end and autovacuum runs as
-- a load grows the table. No plan uses them: the models read fields (`billing->>'email'`), whose estimates never
-- come from the column's statistics, and nothing filters on a whole address.
ALTER TABLE store.orders ALTER COLUMN billing SET STATISTICS 0, ALTER COLUMN shipping SET STATISTICS 0;
ALTER TABLE store.customers ALTER COLUMN billing SET STATISTICS 0, ALTER COLUMN shipping SET STATISTICS 0;
