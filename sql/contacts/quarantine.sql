-- Pending contacts of store $1 whose email the service would refuse are quarantined with the reason:
-- they are never sent, and never hold up the others. Returns one row per contact quarantined now.
UPDATE marketing.outbox AS o SET status = 'quarantined', reason = v.reason, updated_at = now()
FROM (
  SELECT email,
         CASE
           WHEN position('@' IN email) = 0 THEN 'no @ in the email address'
           WHEN email ~ '\s' THEN 'the email address contains spaces'
           WHEN email ~ '@.*@' THEN 'more than one @ in the email address'
           WHEN split_part(email, '@', 1) = '' THEN 'nothing before the @ of the email address'
           WHEN split_part(email, '@', 2) !~ '^[^.]+(\.[^.]+)+$' THEN 'the part after the @ is not a domain name'
         END AS reason
  FROM marketing.outbox
  WHERE store_id = $1 AND status = 'pending'
) AS v
WHERE o.store_id = $1 AND o.email = v.email AND v.reason IS NOT NULL
RETURNING o.email, o.reason
