-- The next pending contacts of store $1 after email $2 (keyset order), at most $3 of them.
SELECT email, state, state_hash
FROM marketing.outbox
WHERE store_id = $1 AND status = 'pending' AND email > $2
ORDER BY email
LIMIT $3
