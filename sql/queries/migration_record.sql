INSERT INTO public.shopsync_migrations (version) VALUES ($1)
