-- The live keys of scopes $3 of table $1 for store $2.
SELECT scope, key FROM sync.scope_keys($1::regclass, $2, $3::text[])
