-- The contact derivation reads whole tables, where hash and merge joins are right whatever the statistics
-- say; right after a first load (tables not analyzed yet) the planner would otherwise nest loops for seconds.
SET LOCAL enable_nestloop = off
