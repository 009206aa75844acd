-- Variable products the store still has: the parents of variations.
SELECT id FROM store.products WHERE store_id = $1 AND deleted_at IS NULL AND type = 'variable' ORDER BY id
