-- Webhook deliveries as `shopsync serve` received them: written before the store gets its 200, applied by the
-- worker in arrival order, so a delivery survives a crash between the two and a restart replays what is pending.
CREATE TABLE sync.webhook_inbox (
  seq          bigserial   PRIMARY KEY,
  store_id     text        NOT NULL,
  webhook_id   text        NOT NULL,
  delivery_id  text        NOT NULL,
  topic        text        NOT NULL,
  body         text        NOT NULL,
  received_at  timestamptz NOT NULL DEFAULT now(),
  state        text        NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'applied', 'skipped', 'failed')),
  applied_at   timestamptz,
  reason       text,
  UNIQUE (store_id, webhook_id, delivery_id)
);

CREATE INDEX webhook_inbox_pending ON sync.webhook_inbox (store_id, seq) WHERE state = 'pending';

COMMENT ON TABLE sync.webhook_inbox IS
  'Signed webhook deliveries received by shopsync serve (POST /webhooks/store), one row per webhook and delivery id (a delivery sent twice is stored once); the worker applies pending rows in seq order.';
COMMENT ON COLUMN sync.webhook_inbox.seq IS 'Arrival order: the order in which deliveries are applied.';
COMMENT ON COLUMN sync.webhook_inbox.store_id IS 'The store the delivery came for (STORE_ID, or the id in /webhooks/store/<store_id>).';
COMMENT ON COLUMN sync.webhook_inbox.webhook_id IS 'The store''s webhook id (X-WC-Webhook-ID or X-Shop-Webhook-ID).';
COMMENT ON COLUMN sync.webhook_inbox.delivery_id IS 'The delivery id (X-…-Webhook-Delivery-ID); with webhook_id it makes a delivery unique.';
COMMENT ON COLUMN sync.webhook_inbox.topic IS 'The topic, such as order.updated or customer.deleted (X-…-Webhook-Topic).';
COMMENT ON COLUMN sync.webhook_inbox.body IS 'The body exactly as received (the resource''s REST document, or {"id": N} for *.deleted).';
COMMENT ON COLUMN sync.webhook_inbox.received_at IS 'When shopsync serve stored the delivery.';
COMMENT ON COLUMN sync.webhook_inbox.state IS 'pending: not applied yet; applied: loaded or marked deleted; skipped: the warehouse already held this version or a newer one; failed: cannot be applied (see reason), never retried.';
COMMENT ON COLUMN sync.webhook_inbox.applied_at IS 'When the worker applied, skipped or failed it; NULL while pending.';
COMMENT ON COLUMN sync.webhook_inbox.reason IS 'Why it was skipped or failed; NULL otherwise.';
