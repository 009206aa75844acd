-- $3 rows of this run, $4 error text (null on success)
UPDATE sync.state SET
  last_rows = $3,
  last_error = $4,
  last_success_at = CASE WHEN $4::text IS NULL THEN now() ELSE last_success_at END,
  updated_at = now()
WHERE store_id = $1 AND stream = $2
