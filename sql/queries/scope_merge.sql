-- Merges the staged scopes $3 into table $1 for store $2 (see sync.merge_scopes).
SELECT scope, key, change FROM sync.merge_scopes($1::regclass, $2, $3::text[])
