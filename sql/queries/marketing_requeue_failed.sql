-- Gives the contacts of store $1 the service refused another chance (after fixing the cause).
UPDATE marketing.outbox SET status = 'pending', attempts = 0, updated_at = now()
WHERE store_id = $1 AND status = 'failed'
RETURNING email
