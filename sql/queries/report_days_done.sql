-- $2, $3: the first and last day of a report just stored.
DELETE FROM sync.report_days WHERE store_id = $1 AND day BETWEEN $2::date AND $3::date
