-- Serialises concurrent migrators for the rest of the transaction.
SELECT pg_advisory_xact_lock(hashtext('shopsync:migrate'))
