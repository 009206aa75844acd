-- The outbox of store $1: contacts per status and how long the oldest pending one has waited.
SELECT
  count(*) FILTER (WHERE status = 'pending')::integer AS pending,
  count(*) FILTER (WHERE status = 'sent')::integer AS sent,
  count(*) FILTER (WHERE status = 'failed')::integer AS failed,
  count(*) FILTER (WHERE status = 'quarantined')::integer AS quarantined,
  coalesce(justify_interval(date_trunc('second', now() - min(enqueued_at) FILTER (WHERE status = 'pending')))::text, '') AS oldest_pending_age
FROM marketing.outbox
WHERE store_id = $1
