-- What each run came to, in the vocabulary of its JSON log line, and what each of its streams did. A run skipped
-- because another one held the store's lock is recorded too (status 'skipped'): it never held the lock and
-- finishes as it starts, so the rows still 'running' remain those of live or dead runs only.
ALTER TABLE sync.runs DROP CONSTRAINT IF EXISTS runs_status_check;
ALTER TABLE sync.runs ADD CONSTRAINT runs_status_check CHECK (status IN ('running', 'succeeded', 'failed', 'skipped'));
ALTER TABLE sync.runs
  ADD COLUMN outcome text CHECK (outcome IN ('succeeded', 'partial_failure', 'failed', 'skipped_locked', 'interrupted')),
  ADD COLUMN stream_results jsonb;

-- Runs recorded before this migration: their outcome as far as status and error tell it.
UPDATE sync.runs SET outcome = CASE
    WHEN status = 'succeeded' THEN 'succeeded'
    WHEN error LIKE 'interrupted:%' THEN 'interrupted'
    ELSE 'failed' END
  WHERE status <> 'running';

COMMENT ON COLUMN sync.runs.outcome IS
  'How the run ended, as its JSON log line says: succeeded; partial_failure (some streams failed, the others loaded); '
  'failed (nothing could run: store or warehouse unreachable, credentials refused); skipped_locked (another run held '
  'the store''s lock, nothing done); interrupted (stopped by a signal or a dead process; the next run resumes). NULL while running.';
COMMENT ON COLUMN sync.runs.stream_results IS
  'One object per stream of a run that got to its end (succeeded or partial_failure): stream, outcome (done, failed, '
  'unavailable, not due, skipped), rows written, rows marked deleted, seconds, and error or reason. NULL otherwise.';
