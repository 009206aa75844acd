SELECT pg_advisory_unlock(hashtext('shopsync:push'), hashtext($1))
