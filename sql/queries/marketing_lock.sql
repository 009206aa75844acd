-- One push per store at a time (sync's push and a manual push); held by the session until released.
SELECT pg_try_advisory_lock(hashtext('shopsync:push'), hashtext($1)) AS locked
