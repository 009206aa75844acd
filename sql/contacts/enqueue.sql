-- Derives every contact of store $1 and enqueues those whose state changed since it was last enqueued
-- (a new state equal to what the service already has is marked sent again, not re-sent).
-- The state is what the service receives: field aliases → absolute values, and every managed tag as
-- `tag` or `-tag` (the service's tags are additive). Standard fields are left out when blank (a blank
-- must not erase what someone typed in the service); the shop_* fields belong to shopsync and are sent
-- as null when there is nothing to say, which overwriteWithBlank turns into a cleared value (zeros are
-- sent as null too: the service ignores a 0 on POST). The country is kept as its ISO code (the client
-- sends the name the service's country list uses); the region is left out, as the service only accepts
-- its own region names.
-- Returns: derived contacts, enqueued now, and already sent with this very state (unchanged).
WITH contacts AS (
  SELECT c.email,
         jsonb_strip_nulls(jsonb_build_object(
           'email', c.email,
           'firstname', c.firstname,
           'lastname', c.lastname,
           'address1', c.address1,
           'address2', c.address2,
           'city', c.city,
           'zipcode', c.zipcode,
           'country', c.country,
           'phone', c.phone
         ))
         || jsonb_build_object(
           'shop_orders_count', nullif(c.orders_count, 0),
           'shop_total_spent', nullif(c.total_spent, 0),
           'shop_refunded_total', nullif(c.refunded_total, 0),
           'shop_currency', c.currency,
           'shop_spent_by_currency', c.spent_by_currency,
           'shop_first_order', c.first_order_day::text,
           'shop_last_order', c.last_order_day::text,
           'overwriteWithBlank', true,
           'tags', (SELECT jsonb_agg(CASE WHEN t = ANY (c.tags) THEN t ELSE '-' || t END ORDER BY t)
                    FROM unnest(ARRAY['customer', 'refunded', 'repeat-buyer']) AS t)
         ) AS state
  FROM analytics.marketing_contacts c
  WHERE c.store_id = $1
), derived AS (
  SELECT email, state, md5(state::text) AS hash FROM contacts
), upserted AS (
  INSERT INTO marketing.outbox AS o (store_id, email, state, state_hash, status, enqueued_at)
  SELECT $1, d.email, d.state, d.hash, 'pending', now() FROM derived d
  ON CONFLICT (store_id, email) DO UPDATE SET
    state = EXCLUDED.state,
    state_hash = EXCLUDED.state_hash,
    status = CASE WHEN EXCLUDED.state_hash = o.sent_hash THEN 'sent' ELSE 'pending' END,
    reason = NULL,
    attempts = 0,
    last_error = NULL,
    enqueued_at = now(),
    updated_at = now()
  WHERE o.state_hash IS DISTINCT FROM EXCLUDED.state_hash
  RETURNING o.status
)
SELECT
  (SELECT count(*) FROM derived)::integer AS derived,
  (SELECT count(*) FROM upserted WHERE status = 'pending')::integer AS enqueued,
  (SELECT count(*) FROM derived d JOIN marketing.outbox o ON o.store_id = $1 AND o.email = d.email
    WHERE o.status = 'sent' AND o.state_hash = d.hash)::integer AS unchanged
