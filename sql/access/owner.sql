-- Hands every object of shopsync's schemas to the owner role (set in the session as shopsync.owner), run by the
-- superuser at each start of the embedded warehouse; it does nothing once they are owned. Warehouses created before
-- the owner role existed have them owned by the bootstrap superuser, whose objects REASSIGN OWNED refuses to move
-- ("required by the database system"): so one ALTER per object. A table takes its indexes, its row type and the
-- sequences its columns own along; array types follow their element type.
DO $$
DECLARE
  owner_role regrole := current_setting('shopsync.owner')::regrole;
  our_schemas text[] := ARRAY['store', 'sync', 'marketing', 'analytics'];
  r record;
BEGIN
  FOR r IN SELECT n.nspname FROM pg_namespace n
           WHERE n.nspname = ANY (our_schemas) AND n.nspowner <> owner_role LOOP
    EXECUTE format('ALTER SCHEMA %I OWNER TO %s', r.nspname, owner_role);
  END LOOP;
  FOR r IN SELECT c.oid::regclass AS name, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE c.relowner <> owner_role AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
             AND (n.nspname = ANY (our_schemas) OR (n.nspname = 'public' AND c.relname IN ('shopsync_migrations', 'shopsync_models'))) LOOP
    EXECUTE format('ALTER %s %s OWNER TO %s',
      CASE r.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END,
      r.name, owner_role);
  END LOOP;
  FOR r IN SELECT c.oid::regclass AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE c.relowner <> owner_role AND c.relkind = 'S' AND n.nspname = ANY (our_schemas)
             AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i')) LOOP
    EXECUTE format('ALTER SEQUENCE %s OWNER TO %s', r.name, owner_role);
  END LOOP;
  FOR r IN SELECT p.oid::regprocedure AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
           WHERE p.proowner <> owner_role AND n.nspname = ANY (our_schemas) LOOP
    EXECUTE format('ALTER ROUTINE %s OWNER TO %s', r.name, owner_role);
  END LOOP;
  FOR r IN SELECT t.oid::regtype AS name, t.typtype FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
           WHERE t.typowner <> owner_role AND n.nspname = ANY (our_schemas)
             AND t.typrelid = 0 AND t.typcategory <> 'A' LOOP
    EXECUTE format('ALTER %s %s OWNER TO %s', CASE r.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END, r.name, owner_role);
  END LOOP;
END $$;
