-- The store's resources, normalized. Every row is keyed by (store_id, id) so several stores can share
-- one warehouse; `doc` keeps the full API document; `deleted_at` marks rows the store no longer has.
-- Money is numeric (exact); timestamps are timestamptz (from the API's *_gmt fields) plus the store's
-- local wall-clock value where a day bucket needs it (the API's non-GMT fields, taken verbatim).

CREATE SCHEMA IF NOT EXISTS store;
CREATE SCHEMA IF NOT EXISTS sync;
CREATE SCHEMA IF NOT EXISTS analytics;

-- Source: GET /orders (status=any, then status=trash), cursor on date_modified_gmt.
CREATE TABLE store.orders (
  store_id            text        NOT NULL,
  id                  bigint      NOT NULL,
  parent_id           bigint      NOT NULL DEFAULT 0,
  number              text,
  status              text        NOT NULL,
  currency            text        NOT NULL,
  created_via         text,
  date_created        timestamptz NOT NULL,
  date_created_local  timestamp   NOT NULL,
  created_day         date        NOT NULL GENERATED ALWAYS AS (date_created_local::date) STORED,
  date_modified       timestamptz NOT NULL,
  date_paid           timestamptz,
  date_completed      timestamptz,
  customer_id         bigint      NOT NULL DEFAULT 0,
  billing_email       text,
  billing             jsonb,
  shipping            jsonb,
  payment_method      text,
  prices_include_tax  boolean,
  discount_total      numeric     NOT NULL DEFAULT 0,
  discount_tax        numeric     NOT NULL DEFAULT 0,
  shipping_total      numeric     NOT NULL DEFAULT 0,
  shipping_tax        numeric     NOT NULL DEFAULT 0,
  cart_tax            numeric     NOT NULL DEFAULT 0,
  total               numeric     NOT NULL,
  total_tax           numeric     NOT NULL DEFAULT 0,
  doc                 jsonb       NOT NULL,
  synced_at           timestamptz NOT NULL DEFAULT now(),
  deleted_at          timestamptz,
  PRIMARY KEY (store_id, id)
);
CREATE INDEX orders_day_idx ON store.orders (store_id, created_day) WHERE deleted_at IS NULL;
CREATE INDEX orders_modified_idx ON store.orders (store_id, date_modified);
CREATE INDEX orders_customer_idx ON store.orders (store_id, customer_id) WHERE customer_id <> 0;

-- Order lines: replaced with their order on every sync of it.
CREATE TABLE store.order_line_items (
  store_id      text    NOT NULL,
  id            bigint  NOT NULL,
  order_id      bigint  NOT NULL,
  product_id    bigint,
  variation_id  bigint,
  name          text,
  sku           text,
  quantity      numeric NOT NULL,
  price         numeric,
  subtotal      numeric NOT NULL DEFAULT 0,
  subtotal_tax  numeric NOT NULL DEFAULT 0,
  total         numeric NOT NULL DEFAULT 0,
  total_tax     numeric NOT NULL DEFAULT 0,
  doc           jsonb   NOT NULL,
  PRIMARY KEY (store_id, id)
);
CREATE INDEX order_line_items_order_idx ON store.order_line_items (store_id, order_id);

CREATE TABLE store.order_tax_lines (
  store_id            text    NOT NULL,
  id                  bigint  NOT NULL,
  order_id            bigint  NOT NULL,
  rate_code           text,
  rate_id             bigint,
  label               text,
  compound            boolean,
  tax_total           numeric NOT NULL DEFAULT 0,
  shipping_tax_total  numeric NOT NULL DEFAULT 0,
  doc                 jsonb   NOT NULL,
  PRIMARY KEY (store_id, id)
);
CREATE INDEX order_tax_lines_order_idx ON store.order_tax_lines (store_id, order_id);

CREATE TABLE store.order_shipping_lines (
  store_id      text    NOT NULL,
  id            bigint  NOT NULL,
  order_id      bigint  NOT NULL,
  method_id     text,
  method_title  text,
  total         numeric NOT NULL DEFAULT 0,
  total_tax     numeric NOT NULL DEFAULT 0,
  doc           jsonb   NOT NULL,
  PRIMARY KEY (store_id, id)
);
CREATE INDEX order_shipping_lines_order_idx ON store.order_shipping_lines (store_id, order_id);

CREATE TABLE store.order_fee_lines (
  store_id    text    NOT NULL,
  id          bigint  NOT NULL,
  order_id    bigint  NOT NULL,
  name        text,
  tax_class   text,
  tax_status  text,
  total       numeric NOT NULL DEFAULT 0,
  total_tax   numeric NOT NULL DEFAULT 0,
  doc         jsonb   NOT NULL,
  PRIMARY KEY (store_id, id)
);
CREATE INDEX order_fee_lines_order_idx ON store.order_fee_lines (store_id, order_id);

CREATE TABLE store.order_coupon_lines (
  store_id      text    NOT NULL,
  id            bigint  NOT NULL,
  order_id      bigint  NOT NULL,
  code          text,
  discount      numeric NOT NULL DEFAULT 0,
  discount_tax  numeric NOT NULL DEFAULT 0,
  doc           jsonb   NOT NULL,
  PRIMARY KEY (store_id, id)
);
CREATE INDEX order_coupon_lines_order_idx ON store.order_coupon_lines (store_id, order_id);

-- Source: GET /refunds (store-wide, cursor on date_created_gmt), or GET /orders/<id>/refunds on
-- stores without it. `amount` is positive; the day bucket is the refund's own local date.
CREATE TABLE store.refunds (
  store_id            text        NOT NULL,
  id                  bigint      NOT NULL,
  order_id            bigint      NOT NULL,
  date_created        timestamptz NOT NULL,
  date_created_local  timestamp   NOT NULL,
  created_day         date        NOT NULL GENERATED ALWAYS AS (date_created_local::date) STORED,
  amount              numeric     NOT NULL,
  reason              text,
  refunded_by         bigint,
  refunded_payment    boolean,
  doc                 jsonb       NOT NULL,
  synced_at           timestamptz NOT NULL DEFAULT now(),
  deleted_at          timestamptz,
  PRIMARY KEY (store_id, id)
);
CREATE INDEX refunds_order_idx ON store.refunds (store_id, order_id);
CREATE INDEX refunds_day_idx ON store.refunds (store_id, created_day) WHERE deleted_at IS NULL;
CREATE INDEX refunds_created_idx ON store.refunds (store_id, date_created);

CREATE TABLE store.refund_line_items (
  store_id      text    NOT NULL,
  id            bigint  NOT NULL,
  refund_id     bigint  NOT NULL,
  product_id    bigint,
  variation_id  bigint,
  name          text,
  quantity      numeric NOT NULL,
  subtotal      numeric NOT NULL DEFAULT 0,
  total         numeric NOT NULL DEFAULT 0,
  total_tax     numeric NOT NULL DEFAULT 0,
  doc           jsonb   NOT NULL,
  PRIMARY KEY (store_id, id)
);
CREATE INDEX refund_line_items_refund_idx ON store.refund_line_items (store_id, refund_id);

-- Source: GET /customers (no modified filter: full scan, rows rewritten only when doc_hash changes).
CREATE TABLE store.customers (
  store_id            text        NOT NULL,
  id                  bigint      NOT NULL,
  email               text,
  first_name          text,
  last_name           text,
  username            text,
  role                text,
  is_paying_customer  boolean,
  date_created        timestamptz,
  date_modified       timestamptz,
  billing             jsonb,
  shipping            jsonb,
  doc                 jsonb       NOT NULL,
  doc_hash            text        NOT NULL,
  synced_at           timestamptz NOT NULL DEFAULT now(),
  deleted_at          timestamptz,
  PRIMARY KEY (store_id, id)
);
CREATE INDEX customers_email_idx ON store.customers (store_id, lower(email));

-- Source: GET /products, cursor on date_modified_gmt.
CREATE TABLE store.products (
  store_id        text        NOT NULL,
  id              bigint      NOT NULL,
  parent_id       bigint      NOT NULL DEFAULT 0,
  name            text,
  slug            text,
  sku             text,
  type            text,
  status          text,
  price           numeric,
  regular_price   numeric,
  sale_price      numeric,
  stock_quantity  integer,
  stock_status    text,
  date_created    timestamptz,
  date_modified   timestamptz NOT NULL,
  doc             jsonb       NOT NULL,
  synced_at       timestamptz NOT NULL DEFAULT now(),
  deleted_at      timestamptz,
  PRIMARY KEY (store_id, id)
);
CREATE INDEX products_modified_idx ON store.products (store_id, date_modified);

-- Source: GET /products/<id>/variations for each variable product that changed.
CREATE TABLE store.product_variations (
  store_id        text        NOT NULL,
  id              bigint      NOT NULL,
  product_id      bigint      NOT NULL,
  sku             text,
  status          text,
  price           numeric,
  regular_price   numeric,
  sale_price      numeric,
  stock_quantity  integer,
  stock_status    text,
  date_created    timestamptz,
  date_modified   timestamptz,
  doc             jsonb       NOT NULL,
  synced_at       timestamptz NOT NULL DEFAULT now(),
  deleted_at      timestamptz,
  PRIMARY KEY (store_id, id)
);
CREATE INDEX product_variations_product_idx ON store.product_variations (store_id, product_id);

-- Source: GET /reports/sales?date_min&date_max, one row per local day of the store's own report.
CREATE TABLE store.sales_report_daily (
  store_id    text        NOT NULL,
  day         date        NOT NULL,
  sales       numeric     NOT NULL,
  orders      integer     NOT NULL,
  items       integer     NOT NULL,
  tax         numeric     NOT NULL,
  shipping    numeric     NOT NULL,
  discount    numeric     NOT NULL,
  customers   integer     NOT NULL,
  refunds     numeric,
  fetched_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (store_id, day)
);

-- Cursor per store and stream. A cursor is (second, id): every row ordered at or before it is loaded.
CREATE TABLE sync.state (
  store_id        text        NOT NULL,
  stream          text        NOT NULL,
  cursor_at       timestamptz,
  cursor_id       bigint,
  details         jsonb       NOT NULL DEFAULT '{}',
  rows_total      bigint      NOT NULL DEFAULT 0,
  last_run_id     bigint,
  last_started_at timestamptz,
  last_success_at timestamptz,
  last_rows       bigint,
  last_error      text,
  updated_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (store_id, stream)
);

-- Store-local days whose figures changed since the store's report for them was last fetched. Written by the
-- tables' triggers (migration 007) in the same transaction as the rows that changed them, so a run that stops
-- early (or leaves out the reports stream) loses none of them.
CREATE TABLE sync.report_days (
  store_id  text NOT NULL,
  day       date NOT NULL,
  PRIMARY KEY (store_id, day)
);

-- One row per sync/backfill invocation.
CREATE TABLE sync.runs (
  id           bigserial   PRIMARY KEY,
  store_id     text        NOT NULL,
  command      text        NOT NULL,
  streams      text[]      NOT NULL,
  started_at   timestamptz NOT NULL DEFAULT now(),
  finished_at  timestamptz,
  status       text        NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'succeeded', 'failed')),
  rows         bigint      NOT NULL DEFAULT 0,
  requests     bigint      NOT NULL DEFAULT 0,
  error        text
);
CREATE INDEX runs_store_idx ON sync.runs (store_id, started_at DESC);
