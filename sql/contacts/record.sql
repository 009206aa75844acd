-- Records what the service did with one batch of store $1. $2 is a JSON array of
-- {email, hash (of the state sent), outcome: sent | failed | retry, contact_id, error}.
-- A row whose state changed while its old state was in flight stays pending (the new state goes next run).
UPDATE marketing.outbox AS o SET
  status = CASE
    WHEN r.outcome = 'sent' AND o.state_hash = r.hash THEN 'sent'
    WHEN r.outcome = 'failed' AND o.state_hash = r.hash THEN 'failed'
    ELSE 'pending'
  END,
  sent_hash = CASE WHEN r.outcome = 'sent' THEN r.hash ELSE o.sent_hash END,
  sent_at = CASE WHEN r.outcome = 'sent' THEN now() ELSE o.sent_at END,
  contact_id = coalesce(r.contact_id, o.contact_id),
  last_error = CASE WHEN r.outcome = 'sent' THEN NULL ELSE r.error END,
  updated_at = now()
FROM jsonb_to_recordset($2::jsonb) AS r(email text, hash text, outcome text, contact_id bigint, error text)
WHERE o.store_id = $1 AND o.email = r.email AND o.status = 'pending'
