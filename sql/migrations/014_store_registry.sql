-- The stores shopsync syncs besides (or instead of) the one the STORE_* variables name: one row per store, added by
-- `shopsync stores add`. Secrets are sealed by shopsync (AES-256-GCM under the master key) before they reach the
-- warehouse; the database never sees them in clear.
CREATE TABLE sync.store_registry (
  store_id                 text        PRIMARY KEY CHECK (store_id ~ '^[\w.-]{1,64}$'),
  api_url                  text        NOT NULL CHECK (api_url ~ '^https?://.+/v3$'),
  consumer_key             text        NOT NULL,
  consumer_secret          bytea       NOT NULL,
  enabled                  boolean     NOT NULL DEFAULT true,
  every                    interval    NOT NULL DEFAULT '5 minutes' CHECK (every >= interval '1 second'),
  webhook_secret           bytea,
  marketing_url            text,
  marketing_client_id      text,
  marketing_client_secret  bytea,
  created_at               timestamptz NOT NULL DEFAULT now(),
  updated_at               timestamptz NOT NULL DEFAULT now(),
  last_success_at          timestamptz,
  last_error               text,
  last_error_at            timestamptz,
  runner                   text,
  CHECK ((marketing_url IS NULL) = (marketing_client_id IS NULL) AND (marketing_url IS NULL) = (marketing_client_secret IS NULL))
);

COMMENT ON TABLE sync.store_registry IS
  'The registered stores (shopsync stores add/list/pause/resume/remove): where each store''s API is, its keys (secrets sealed with AES-256-GCM under SHOPSYNC_MASTER_KEY), how often it is synced and how its last sync went. Removing a row leaves the store''s warehouse rows in place.';
COMMENT ON COLUMN sync.store_registry.store_id IS 'The store''s id: the store_id of all its rows in the warehouse (1-64 letters, digits, ''.'', ''_'' or ''-'').';
COMMENT ON COLUMN sync.store_registry.api_url IS 'The store API root, ending in /v3 (for example https://shop.example/wp-json/wc/v3).';
COMMENT ON COLUMN sync.store_registry.consumer_key IS 'The REST API consumer key (ck_…): an identifier, not a secret; the consumer secret goes with it.';
COMMENT ON COLUMN sync.store_registry.consumer_secret IS 'The REST API consumer secret, sealed: key version byte, 12-byte IV, 16-byte GCM tag, AES-256-GCM ciphertext (bound to this store and column).';
COMMENT ON COLUMN sync.store_registry.enabled IS 'false while paused (shopsync stores pause): no scheduled sync; shopsync stores resume sets it back.';
COMMENT ON COLUMN sync.store_registry.every IS 'How often the store is synced (stores add --every; default 5 minutes).';
COMMENT ON COLUMN sync.store_registry.webhook_secret IS 'The secret the store signs its webhook deliveries with, sealed like consumer_secret; NULL: deliveries are refused.';
COMMENT ON COLUMN sync.store_registry.marketing_url IS 'The marketing service''s root URL the store''s contacts are pushed to; NULL: no contact push for this store.';
COMMENT ON COLUMN sync.store_registry.marketing_client_id IS 'The marketing service''s OAuth2 client id; NULL without a marketing service.';
COMMENT ON COLUMN sync.store_registry.marketing_client_secret IS 'The marketing service''s OAuth2 client secret, sealed like consumer_secret; NULL without a marketing service.';
COMMENT ON COLUMN sync.store_registry.created_at IS 'When the store was added.';
COMMENT ON COLUMN sync.store_registry.updated_at IS 'When the row''s settings last changed (added, paused, resumed).';
COMMENT ON COLUMN sync.store_registry.last_success_at IS 'When the store''s last successful sync or backfill ended; NULL before the first.';
COMMENT ON COLUMN sync.store_registry.last_error IS 'Why the store''s last sync or backfill failed; NULL once one succeeds.';
COMMENT ON COLUMN sync.store_registry.last_error_at IS 'When last_error was recorded; NULL with it.';
COMMENT ON COLUMN sync.store_registry.runner IS 'Who last ran the store''s sync: the cluster runner''s address, or NULL for a command run on its own.';
