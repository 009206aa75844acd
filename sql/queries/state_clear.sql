DELETE FROM sync.state WHERE store_id = $1 AND stream = $2
