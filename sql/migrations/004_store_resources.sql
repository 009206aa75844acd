-- The store's other readable resources (those migration 001 does not hold), each kept by a full refresh of
-- a "scope": the complete list the store gives for one request (or a few, for reviews), fetched whole and
-- compared with what the warehouse has. A top-level resource has one scope (''); a child resource has one per
-- parent (the order of a note, the attribute of a term); a fixed family has one per endpoint (the five
-- totals reports). Every table here shares one shape, so one merge (sync.merge_scopes) serves them all:
--   (store_id, scope, key)  the identity: the document's id, slug or code within its scope
--   doc, doc_hash           the API document as sent, and the md5 of its JSON text (change detection)
--   first_seen_at           when the warehouse first saw it
--   changed_at              when its document last changed (or it came back after being gone); an unchanged
--                           document is not written again
--   deleted_at              when a refresh found it gone (its single GET answering 404, where paging could
--                           have hidden it), or its parent gone
-- and adds typed columns computed from `doc` for what a consumer filters and joins on.

-- The shape every table below starts from (CREATE TABLE … (LIKE sync.resource_rows INCLUDING ALL, …)); it holds no rows.
CREATE TABLE sync.resource_rows (
  store_id       text        NOT NULL,
  scope          text        NOT NULL,
  key            text        NOT NULL,
  doc            jsonb       NOT NULL,
  doc_hash       text        NOT NULL,
  first_seen_at  timestamptz NOT NULL,
  changed_at     timestamptz NOT NULL,
  deleted_at     timestamptz,
  PRIMARY KEY (store_id, scope, key)
);

-- The API's GMT date-time (`2026-03-08T02:30:00`, no offset) as timestamptz. Immutable for that fixed ISO
-- form, which is all the API sends, so generated columns may use it.
CREATE FUNCTION sync.gmt(value text) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT nullif(value, '')::timestamp AT TIME ZONE 'UTC'
$$;

-- sql/models/sync.<name>.sql holds the current text of the three functions below; migrate re-creates them from it.
-- Merges the documents staged in scope_batch (sql/load/scope_stage.sql) for `p_scopes` into `target`: new and
-- changed documents are written, unchanged ones are not touched, and rows of those scopes that were not
-- staged are marked deleted. Returns one row per written or deleted row with what happened to it.
CREATE FUNCTION sync.merge_scopes(target regclass, p_store text, p_scopes text[])
RETURNS TABLE (scope text, key text, change text) LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format($q$
    WITH written AS (
      INSERT INTO %1$s AS t (store_id, scope, key, doc, doc_hash, first_seen_at, changed_at, deleted_at)
      SELECT $1, b.scope, b.key, b.doc, b.doc_hash, now(), now(), NULL
      FROM scope_batch b
      WHERE b.scope = ANY ($2)
      ON CONFLICT (store_id, scope, key) DO UPDATE
        SET doc = EXCLUDED.doc, doc_hash = EXCLUDED.doc_hash, changed_at = now(), deleted_at = NULL
        WHERE t.doc_hash IS DISTINCT FROM EXCLUDED.doc_hash OR t.deleted_at IS NOT NULL
      RETURNING t.scope, t.key, CASE WHEN t.first_seen_at = now() THEN 'created' ELSE 'changed' END
    ), gone AS (
      UPDATE %1$s t SET deleted_at = now()
      WHERE t.store_id = $1 AND t.scope = ANY ($2) AND t.deleted_at IS NULL
        AND NOT EXISTS (SELECT 1 FROM scope_batch b WHERE b.scope = t.scope AND b.key = t.key)
      RETURNING t.scope, t.key, 'deleted'
    )
    SELECT * FROM written UNION ALL SELECT * FROM gone
  $q$, target) USING p_store, p_scopes;
END $$;

-- The live keys of the given scopes, for a refresh to find what disappeared before it merges.
CREATE FUNCTION sync.scope_keys(target regclass, p_store text, p_scopes text[])
RETURNS TABLE (scope text, key text) LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN QUERY EXECUTE format(
    'SELECT t.scope, t.key FROM %s t WHERE t.store_id = $1 AND t.scope = ANY ($2) AND t.deleted_at IS NULL', target
  ) USING p_store, p_scopes;
END $$;

-- Marks deleted the rows whose scope is not one of `live` (children of a parent that is gone).
CREATE FUNCTION sync.retire_orphans(target regclass, p_store text, live text[]) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  n integer;
BEGIN
  EXECUTE format(
    'UPDATE %s t SET deleted_at = now() WHERE t.store_id = $1 AND t.deleted_at IS NULL AND NOT t.scope = ANY ($2)', target
  ) USING p_store, live;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END $$;

-- Source: GET /taxes (paged, orderby=id). Full refresh each run; no modified filter exists.
CREATE TABLE store.tax_rates (
  LIKE sync.resource_rows INCLUDING ALL,
  id             bigint      GENERATED ALWAYS AS ((doc->>'id')::bigint) STORED,
  country        text        GENERATED ALWAYS AS (nullif(doc->>'country', '')) STORED,
  state          text        GENERATED ALWAYS AS (nullif(doc->>'state', '')) STORED,
  rate           numeric     GENERATED ALWAYS AS (nullif(doc->>'rate', '')::numeric) STORED,
  name           text        GENERATED ALWAYS AS (doc->>'name') STORED,
  priority       integer     GENERATED ALWAYS AS ((doc->>'priority')::integer) STORED,
  compound       boolean     GENERATED ALWAYS AS ((doc->>'compound')::boolean) STORED,
  shipping       boolean     GENERATED ALWAYS AS ((doc->>'shipping')::boolean) STORED,
  tax_class      text        GENERATED ALWAYS AS (doc->>'class') STORED
);
COMMENT ON TABLE store.tax_rates IS 'GET /taxes; stream tax_rates; full refresh with change detection every run.';

-- Source: GET /taxes/classes (one unpaged list).
CREATE TABLE store.tax_classes (
  LIKE sync.resource_rows INCLUDING ALL,
  slug           text        GENERATED ALWAYS AS (doc->>'slug') STORED,
  name           text        GENERATED ALWAYS AS (doc->>'name') STORED
);
COMMENT ON TABLE store.tax_classes IS 'GET /taxes/classes; stream tax_classes; full refresh with change detection every run.';

-- Source: GET /products/reviews with status=all (approved and held), spam and trash.
CREATE TABLE store.product_reviews (
  LIKE sync.resource_rows INCLUDING ALL,
  id              bigint      GENERATED ALWAYS AS ((doc->>'id')::bigint) STORED,
  product_id      bigint      GENERATED ALWAYS AS ((doc->>'product_id')::bigint) STORED,
  status          text        GENERATED ALWAYS AS (doc->>'status') STORED,
  reviewer        text        GENERATED ALWAYS AS (doc->>'reviewer') STORED,
  reviewer_email  text        GENERATED ALWAYS AS (doc->>'reviewer_email') STORED,
  rating          integer     GENERATED ALWAYS AS ((doc->>'rating')::integer) STORED,
  verified        boolean     GENERATED ALWAYS AS ((doc->>'verified')::boolean) STORED,
  date_created    timestamptz GENERATED ALWAYS AS (sync.gmt(doc->>'date_created_gmt')) STORED
);
CREATE INDEX product_reviews_product_idx ON store.product_reviews (store_id, product_id);
COMMENT ON TABLE store.product_reviews IS
  'GET /products/reviews (status all, spam, trash; paged); stream product_reviews; full refresh with change detection every run (reviews have no modified date), a missing review marked deleted once its GET answers 404.';

-- Source: GET /products/attributes (one unpaged list).
CREATE TABLE store.product_attributes (
  LIKE sync.resource_rows INCLUDING ALL,
  id             bigint      GENERATED ALWAYS AS ((doc->>'id')::bigint) STORED,
  name           text        GENERATED ALWAYS AS (doc->>'name') STORED,
  slug           text        GENERATED ALWAYS AS (doc->>'slug') STORED,
  type           text        GENERATED ALWAYS AS (doc->>'type') STORED,
  order_by       text        GENERATED ALWAYS AS (doc->>'order_by') STORED,
  has_archives   boolean     GENERATED ALWAYS AS ((doc->>'has_archives')::boolean) STORED
);
COMMENT ON TABLE store.product_attributes IS 'GET /products/attributes; stream product_attributes; full refresh with change detection every run.';

-- Source: GET /products/attributes/<attribute_id>/terms (paged); scope = the attribute id.
CREATE TABLE store.attribute_terms (
  LIKE sync.resource_rows INCLUDING ALL,
  attribute_id   bigint      GENERATED ALWAYS AS (scope::bigint) STORED,
  id             bigint      GENERATED ALWAYS AS ((doc->>'id')::bigint) STORED,
  name           text        GENERATED ALWAYS AS (doc->>'name') STORED,
  slug           text        GENERATED ALWAYS AS (doc->>'slug') STORED,
  menu_order     integer     GENERATED ALWAYS AS ((doc->>'menu_order')::integer) STORED,
  count          integer     GENERATED ALWAYS AS ((doc->>'count')::integer) STORED
);
COMMENT ON TABLE store.attribute_terms IS
  'GET /products/attributes/<id>/terms; stream attribute_terms; per attribute, for attributes that changed this run plus a periodic full pass over every attribute (SHOPSYNC_CHILDREN_FULL_PASS_HOURS); terms of a deleted attribute are marked deleted.';

-- Source: GET /products/categories (paged, orderby=id).
CREATE TABLE store.product_categories (
  LIKE sync.resource_rows INCLUDING ALL,
  id             bigint      GENERATED ALWAYS AS ((doc->>'id')::bigint) STORED,
  name           text        GENERATED ALWAYS AS (doc->>'name') STORED,
  slug           text        GENERATED ALWAYS AS (doc->>'slug') STORED,
  parent         bigint      GENERATED ALWAYS AS ((doc->>'parent')::bigint) STORED,
  display        text        GENERATED ALWAYS AS (doc->>'display') STORED,
  menu_order     integer     GENERATED ALWAYS AS ((doc->>'menu_order')::integer) STORED,
  count          integer     GENERATED ALWAYS AS ((doc->>'count')::integer) STORED
);
COMMENT ON TABLE store.product_categories IS
  'GET /products/categories (paged); stream product_categories; full refresh with change detection every run, a missing category marked deleted once its GET answers 404.';

-- Source: GET /products/shipping_classes (paged, orderby=id).
CREATE TABLE store.shipping_classes (
  LIKE sync.resource_rows INCLUDING ALL,
  id             bigint      GENERATED ALWAYS AS ((doc->>'id')::bigint) STORED,
  name           text        GENERATED ALWAYS AS (doc->>'name') STORED,
  slug           text        GENERATED ALWAYS AS (doc->>'slug') STORED,
  count          integer     GENERATED ALWAYS AS ((doc->>'count')::integer) STORED
);
COMMENT ON TABLE store.shipping_classes IS
  'GET /products/shipping_classes (paged); stream shipping_classes; full refresh with change detection every run, a missing class marked deleted once its GET answers 404.';

-- Source: GET /shipping/zones (one unpaged list; zone 0 is "locations not covered by your other zones").
CREATE TABLE store.shipping_zones (
  LIKE sync.resource_rows INCLUDING ALL,
  id             bigint      GENERATED ALWAYS AS ((doc->>'id')::bigint) STORED,
  name           text        GENERATED ALWAYS AS (doc->>'name') STORED,
  "order"        integer     GENERATED ALWAYS AS ((doc->>'order')::integer) STORED
);
COMMENT ON TABLE store.shipping_zones IS 'GET /shipping/zones; stream shipping_zones; full refresh with change detection every run.';

-- Source: GET /shipping/zones/<zone_id>/methods (unpaged); scope = the zone id, key = instance_id.
CREATE TABLE store.shipping_zone_methods (
  LIKE sync.resource_rows INCLUDING ALL,
  zone_id        bigint      GENERATED ALWAYS AS (scope::bigint) STORED,
  instance_id    bigint      GENERATED ALWAYS AS ((doc->>'instance_id')::bigint) STORED,
  method_id      text        GENERATED ALWAYS AS (doc->>'method_id') STORED,
  title          text        GENERATED ALWAYS AS (doc->>'title') STORED,
  enabled        boolean     GENERATED ALWAYS AS ((doc->>'enabled')::boolean) STORED,
  "order"        integer     GENERATED ALWAYS AS ((doc->>'order')::integer) STORED
);
COMMENT ON TABLE store.shipping_zone_methods IS
  'GET /shipping/zones/<id>/methods; stream shipping_zone_methods; per zone, for zones that changed this run plus a periodic full pass over every zone (SHOPSYNC_CHILDREN_FULL_PASS_HOURS); methods of a deleted zone are marked deleted.';

-- Source: GET /orders/<order_id>/notes (unpaged); scope = the order id.
CREATE TABLE store.order_notes (
  LIKE sync.resource_rows INCLUDING ALL,
  order_id       bigint      GENERATED ALWAYS AS (scope::bigint) STORED,
  id             bigint      GENERATED ALWAYS AS ((doc->>'id')::bigint) STORED,
  author         text        GENERATED ALWAYS AS (doc->>'author') STORED,
  note           text        GENERATED ALWAYS AS (doc->>'note') STORED,
  customer_note  boolean     GENERATED ALWAYS AS ((doc->>'customer_note')::boolean) STORED,
  date_created   timestamptz GENERATED ALWAYS AS (sync.gmt(doc->>'date_created_gmt')) STORED
);
COMMENT ON TABLE store.order_notes IS
  'GET /orders/<id>/notes; stream order_notes; per order, for orders loaded this run plus a periodic full pass over every order (SHOPSYNC_CHILDREN_FULL_PASS_HOURS: a note does not change its order''s date_modified); notes of a deleted order are marked deleted.';

-- Source: GET /customers/<customer_id>/downloads (unpaged); scope = the customer id; a permission has no id of
-- its own, so its key is "<download_id>:<order_id>".
CREATE TABLE store.customer_downloads (
  LIKE sync.resource_rows INCLUDING ALL,
  customer_id          bigint      GENERATED ALWAYS AS (scope::bigint) STORED,
  download_id          text        GENERATED ALWAYS AS (doc->>'download_id') STORED,
  order_id             bigint      GENERATED ALWAYS AS ((doc->>'order_id')::bigint) STORED,
  product_id           bigint      GENERATED ALWAYS AS ((doc->>'product_id')::bigint) STORED,
  download_name        text        GENERATED ALWAYS AS (doc->>'download_name') STORED,
  downloads_remaining  text        GENERATED ALWAYS AS (doc->>'downloads_remaining') STORED,
  access_expires       timestamptz GENERATED ALWAYS AS (sync.gmt(nullif(doc->>'access_expires_gmt', 'never'))) STORED
);
COMMENT ON TABLE store.customer_downloads IS
  'GET /customers/<id>/downloads; stream customer_downloads; per customer, for customers that changed or placed an order loaded this run, plus a periodic full pass over every customer (SHOPSYNC_CHILDREN_FULL_PASS_HOURS); downloads of a deleted customer are marked deleted.';

-- Source: GET /settings (the groups) then GET /settings/<group_id> (its options); scope = the group id.
CREATE TABLE store.settings (
  LIKE sync.resource_rows INCLUDING ALL,
  group_id       text        GENERATED ALWAYS AS (scope) STORED,
  id             text        GENERATED ALWAYS AS (doc->>'id') STORED,
  label          text        GENERATED ALWAYS AS (doc->>'label') STORED,
  type           text        GENERATED ALWAYS AS (doc->>'type') STORED,
  value          jsonb       GENERATED ALWAYS AS (doc->'value') STORED
);
COMMENT ON TABLE store.settings IS
  'GET /settings, then GET /settings/<group> for every group; stream settings; full refresh with change detection every run (settings have no modified date).';

-- Source: GET /data, /data/continents, /data/countries, /data/currencies, /data/currencies/current; scope = the
-- endpoint (index, continents, countries, currencies, current), key = the entry's slug or code.
CREATE TABLE store.reference_data (
  LIKE sync.resource_rows INCLUDING ALL,
  code           text        GENERATED ALWAYS AS (coalesce(doc->>'code', doc->>'slug')) STORED,
  name           text        GENERATED ALWAYS AS (coalesce(doc->>'name', doc->>'description')) STORED
);
COMMENT ON TABLE store.reference_data IS
  'GET /data, /data/continents, /data/countries, /data/currencies, /data/currencies/current; stream reference_data; full refresh with change detection every run.';

-- Source: GET /system_status/tools (unpaged). Reading never runs a tool.
CREATE TABLE store.system_status_tools (
  LIKE sync.resource_rows INCLUDING ALL,
  id             text        GENERATED ALWAYS AS (doc->>'id') STORED,
  name           text        GENERATED ALWAYS AS (doc->>'name') STORED,
  action         text        GENERATED ALWAYS AS (doc->>'action') STORED,
  description    text        GENERATED ALWAYS AS (doc->>'description') STORED
);
COMMENT ON TABLE store.system_status_tools IS 'GET /system_status/tools; stream system_status_tools; full refresh with change detection every run.';

-- Source: GET /webhooks (status=all, paged, orderby=id). A trashed webhook leaves the list: marked deleted.
CREATE TABLE store.webhooks (
  LIKE sync.resource_rows INCLUDING ALL,
  id             bigint      GENERATED ALWAYS AS ((doc->>'id')::bigint) STORED,
  name           text        GENERATED ALWAYS AS (doc->>'name') STORED,
  status         text        GENERATED ALWAYS AS (doc->>'status') STORED,
  topic          text        GENERATED ALWAYS AS (doc->>'topic') STORED,
  delivery_url   text        GENERATED ALWAYS AS (doc->>'delivery_url') STORED,
  date_created   timestamptz GENERATED ALWAYS AS (sync.gmt(doc->>'date_created_gmt')) STORED,
  date_modified  timestamptz GENERATED ALWAYS AS (sync.gmt(doc->>'date_modified_gmt')) STORED
);
COMMENT ON TABLE store.webhooks IS
  'GET /webhooks (status all; paged); stream webhooks; full refresh with change detection every run (the list has no modified filter), a missing webhook marked deleted once its GET answers 404 (trashed webhooks leave the list).';

-- Source: GET /reports/top_sellers?period=<week|month|last_month|year>; scope = the period, key = the product id.
CREATE TABLE store.report_top_sellers (
  LIKE sync.resource_rows INCLUDING ALL,
  period         text        GENERATED ALWAYS AS (scope) STORED,
  product_id     bigint      GENERATED ALWAYS AS ((doc->>'product_id')::bigint) STORED,
  name           text        GENERATED ALWAYS AS (coalesce(doc->>'name', doc->>'title')) STORED,
  quantity       integer     GENERATED ALWAYS AS ((doc->>'quantity')::integer) STORED
);
COMMENT ON TABLE store.report_top_sellers IS
  'GET /reports/top_sellers for the periods week, month, last_month and year; stream report_top_sellers; full refresh every run (an entry that drops out of a period''s list is marked deleted).';

-- Source: GET /reports/<coupons|customers|orders|products|reviews>/totals; scope = the report, key = the slug.
CREATE TABLE store.report_totals (
  LIKE sync.resource_rows INCLUDING ALL,
  report         text        GENERATED ALWAYS AS (scope) STORED,
  slug           text        GENERATED ALWAYS AS (doc->>'slug') STORED,
  name           text        GENERATED ALWAYS AS (doc->>'name') STORED,
  total          numeric     GENERATED ALWAYS AS (nullif(doc->>'total', '')::numeric) STORED
);
COMMENT ON TABLE store.report_totals IS
  'GET /reports/{coupons,customers,orders,products,reviews}/totals; stream report_totals; full refresh every run.';
