CREATE TABLE IF NOT EXISTS public.shopsync_migrations (
  version     text        PRIMARY KEY,
  applied_at  timestamptz NOT NULL DEFAULT now()
)
