-- Poison records never block a stream. A document the sync cannot take (it does not fit its schema, or
-- PostgreSQL refuses it) is set aside here, beside the store's other documents, while the rest of its page
-- loads and the cursor moves on; each later run reads it again by id (`path`) and it leaves when it lands or
-- the store answers 404.
CREATE TABLE store.quarantine (
  store_id    text        NOT NULL,
  -- The resource it belongs to: orders, refunds, products, variations, customers.
  stream      text        NOT NULL,
  -- The document's id as the store sent it ('' when it had none).
  id          text        NOT NULL,
  -- invalid: it does not fit the stream's schema; load: PostgreSQL refused it.
  kind        text        NOT NULL CHECK (kind IN ('invalid', 'load')),
  reason      text        NOT NULL,
  -- The document as last received, as JSON text (NUL characters escaped, as JSON writes them).
  doc         text        NOT NULL,
  -- The single GET that reads it again; NULL when the sync cannot tell (a refund without its order).
  path        text,
  first_seen  timestamptz NOT NULL DEFAULT now(),
  last_seen   timestamptz NOT NULL DEFAULT now(),
  -- Times it was read and set aside.
  attempts    integer     NOT NULL DEFAULT 1,
  PRIMARY KEY (store_id, stream, id)
);

-- Documents that held NUL characters (PostgreSQL's text and jsonb cannot) and were stored without them.
CREATE TABLE store.cleaned (
  store_id    text        NOT NULL,
  stream      text        NOT NULL,
  id          text        NOT NULL,
  first_seen  timestamptz NOT NULL DEFAULT now(),
  last_seen   timestamptz NOT NULL DEFAULT now(),
  times       integer     NOT NULL DEFAULT 1,
  PRIMARY KEY (store_id, stream, id)
);
