-- Marks deleted the rows of table $1 (store $2) whose parent is not among the live parents $3.
SELECT sync.retire_orphans($1::regclass, $2, $3::text[]) AS retired
