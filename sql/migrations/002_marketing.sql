-- The contact outbox of the marketing push: one row per store and contact email, holding the contact's
-- last derived state (absolute values, never deltas) and what the marketing service last accepted.
-- A row is pending while its state differs from what was sent; sending it again is always safe.

CREATE SCHEMA IF NOT EXISTS marketing;

CREATE TABLE marketing.outbox (
  store_id     text        NOT NULL,
  -- The contact's key: trimmed and lower-cased, as the service compares emails case-insensitively.
  email        text        NOT NULL CHECK (email = lower(btrim(email)) AND email <> ''),
  -- The contact as the service receives it (field aliases → values, tags), and md5 of its text.
  state        jsonb       NOT NULL,
  state_hash   text        NOT NULL,
  -- Hash of the state the service last accepted; equal to state_hash when nothing is left to send.
  sent_hash    text,
  sent_at      timestamptz,
  contact_id   bigint,
  attempts     integer     NOT NULL DEFAULT 0,
  last_error   text,
  status       text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed', 'quarantined')),
  -- Why a quarantined row is never sent (an email the service would refuse).
  reason       text,
  enqueued_at  timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (store_id, email),
  CHECK ((status = 'quarantined') = (reason IS NOT NULL))
);
CREATE INDEX outbox_pending_idx ON marketing.outbox (store_id, email) WHERE status = 'pending';
