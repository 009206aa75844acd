-- Why contacts of store $1 are quarantined or failed, grouped by reason, with a few example emails.
SELECT status,
       left(coalesce(reason, last_error, ''), 160) AS reason,
       count(*)::integer AS contacts,
       array_to_string((array_agg(email ORDER BY email))[1:3], ', ') AS examples
FROM marketing.outbox
WHERE store_id = $1 AND status IN ('quarantined', 'failed')
GROUP BY status, left(coalesce(reason, last_error, ''), 160)
ORDER BY status DESC, contacts DESC, reason
