-- One sync per store at a time (cron overlap); held by the session until released.
SELECT pg_try_advisory_lock(hashtext('shopsync:sync'), hashtext($1)) AS locked
