-- The demo's marketing simulator starts empty each time, so the demo store's outbox does too.
DELETE FROM marketing.outbox WHERE store_id = $1
