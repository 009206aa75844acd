-- Hands every object of shopsync's schemas to the owner role (set in the session as shopsync.owner), run by the
-- superuser at each start of the embedded warehouse; it does nothing once they are owned. Warehouses created before
-- the owner role existed have them owned by the bootstrap superuser, whose objects REASSIGN OWNED refuses to move
-- ("required by the database system"): so one ALTER per object. A table takes its indexes, its row type and the
-- sequences its columns own along; array types follow their element type; a composite type (CREATE TYPE … AS)
-- is a relation of kind 'c', altered as a type. The session's search_path is pg_catalog
-- (the owner controls `public` and the database's settings): every function and catalogue here is named by schema.
DO $$
DECLARE
  owner_role pg_catalog.regrole := pg_catalog.current_setting('shopsync.owner')::pg_catalog.regrole;
  our_schemas pg_catalog.text[] := ARRAY['store', 'sync', 'marketing', 'analytics'];
  r record;
BEGIN
  FOR r IN SELECT n.nspname FROM pg_catalog.pg_namespace n
           WHERE n.nspname = ANY (our_schemas) AND n.nspowner <> owner_role LOOP
    EXECUTE pg_catalog.format('ALTER SCHEMA %I OWNER TO %s', r.nspname, owner_role);
  END LOOP;
  FOR r IN SELECT c.oid::pg_catalog.regclass AS name, c.relkind FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
           WHERE c.relowner <> owner_role AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'c')
             AND (n.nspname = ANY (our_schemas) OR (n.nspname = 'public' AND c.relname IN ('shopsync_migrations', 'shopsync_models'))) LOOP
    EXECUTE pg_catalog.format('ALTER %s %s OWNER TO %s',
      CASE r.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE' WHEN 'c' THEN 'TYPE' ELSE 'TABLE' END,
      r.name, owner_role);
  END LOOP;
  FOR r IN SELECT c.oid::pg_catalog.regclass AS name FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
           WHERE c.relowner <> owner_role AND c.relkind = 'S' AND n.nspname = ANY (our_schemas)
             AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend d WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i')) LOOP
    EXECUTE pg_catalog.format('ALTER SEQUENCE %s OWNER TO %s', r.name, owner_role);
  END LOOP;
  FOR r IN SELECT p.oid::pg_catalog.regprocedure AS name FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
           WHERE p.proowner <> owner_role AND n.nspname = ANY (our_schemas) LOOP
    EXECUTE pg_catalog.format('ALTER ROUTINE %s OWNER TO %s', r.name, owner_role);
  END LOOP;
  FOR r IN SELECT t.oid::pg_catalog.regtype AS name, t.typtype FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
           WHERE t.typowner <> owner_role AND n.nspname = ANY (our_schemas)
             AND t.typrelid = 0 AND t.typcategory <> 'A' LOOP
    EXECUTE pg_catalog.format('ALTER %s %s OWNER TO %s', CASE r.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END, r.name, owner_role);
  END LOOP;
END $$;
