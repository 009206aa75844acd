-- Reconciliations (`shopsync verify`, and a sync every SHOPSYNC_VERIFY_HOURS): the store's listings of ids and dates
-- compared with the warehouse's live rows, one row per resource and pass, with what differed and what was repaired.
CREATE TABLE sync.reconciliations (
  id           bigserial   PRIMARY KEY,
  store_id     text        NOT NULL,
  run_id       bigint      NOT NULL,
  resource     text        NOT NULL CHECK (resource IN ('orders', 'refunds', 'products', 'customers')),
  started_at   timestamptz NOT NULL,
  finished_at  timestamptz NOT NULL DEFAULT now(),
  upper_bound  timestamptz NOT NULL,
  listed       integer     NOT NULL,
  missing      integer     NOT NULL,
  stale        integer     NOT NULL,
  gone         integer     NOT NULL,
  repair       boolean     NOT NULL,
  repaired     integer     NOT NULL,
  missing_ids  bigint[]    NOT NULL,
  stale_ids    bigint[]    NOT NULL,
  gone_ids     bigint[]    NOT NULL,
  requests     integer     NOT NULL,
  seconds      numeric     NOT NULL
);

CREATE INDEX reconciliations_latest ON sync.reconciliations (store_id, run_id DESC);

COMMENT ON TABLE sync.reconciliations IS
  'Reconciliations of the warehouse with the store (shopsync verify, and a sync every SHOPSYNC_VERIFY_HOURS): per resource, '
  'every id and date the store lists compared with the live rows of store.*, one row per resource and pass.';
COMMENT ON COLUMN sync.reconciliations.id IS 'Row id, in the order rows were recorded.';
COMMENT ON COLUMN sync.reconciliations.store_id IS 'The shopsync store id (STORE_ID).';
COMMENT ON COLUMN sync.reconciliations.run_id IS 'The run (sync.runs.id) it ran in: a verify, or the sync it was due in; the rows of one pass share it.';
COMMENT ON COLUMN sync.reconciliations.resource IS 'What was compared: orders, refunds, products or customers.';
COMMENT ON COLUMN sync.reconciliations.started_at IS 'When the pass started (UTC), the same for every resource of it.';
COMMENT ON COLUMN sync.reconciliations.finished_at IS 'When this resource was done (UTC): listed, compared and repaired.';
COMMENT ON COLUMN sync.reconciliations.upper_bound IS
  'The store''s clock minus STORE_SETTLE_SECONDS at the start: rows dated at or after it were not compared (they belong to the next sync).';
COMMENT ON COLUMN sync.reconciliations.listed IS 'Rows the store listed (status any and trash; customers of every role).';
COMMENT ON COLUMN sync.reconciliations.missing IS 'Rows the store listed before the upper bound that the warehouse did not hold live.';
COMMENT ON COLUMN sync.reconciliations.stale IS
  'Rows held on both sides whose modification date differed (or that were trash on one side only); refunds, which never change, are compared by id alone.';
COMMENT ON COLUMN sync.reconciliations.gone IS
  'Rows the warehouse held live that the store no longer has (a 404 on their own GET; for refunds, absent from the complete listing).';
COMMENT ON COLUMN sync.reconciliations.repair IS 'Whether the pass repaired what it found (verify --repair, and every scheduled pass).';
COMMENT ON COLUMN sync.reconciliations.repaired IS
  'Rows repaired: missing and stale rows read again and loaded, gone rows marked deleted (deleted_at); 0 without repair.';
COMMENT ON COLUMN sync.reconciliations.missing_ids IS 'The ids of the missing rows, the first 100 in id order.';
COMMENT ON COLUMN sync.reconciliations.stale_ids IS 'The ids of the stale rows, the first 100 in id order.';
COMMENT ON COLUMN sync.reconciliations.gone_ids IS 'The ids of the gone rows, the first 100 in id order.';
COMMENT ON COLUMN sync.reconciliations.requests IS 'Requests to the store for this resource: listing pages, GETs confirming gone rows, reads by include.';
COMMENT ON COLUMN sync.reconciliations.seconds IS 'Seconds this resource took, listing to repair.';
COMMENT ON COLUMN sync.runs.command IS 'sync, backfill or verify.';
