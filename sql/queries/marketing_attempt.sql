-- Counts a send attempt for contacts $2 of store $1, before the request leaves.
UPDATE marketing.outbox SET attempts = attempts + 1, updated_at = now()
WHERE store_id = $1 AND email = ANY ($2::text[])
