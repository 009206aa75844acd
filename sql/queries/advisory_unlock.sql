SELECT pg_advisory_unlock(hashtext('shopsync:sync'), hashtext($1))
