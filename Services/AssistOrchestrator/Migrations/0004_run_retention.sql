-- assist.run_expired: the run's content (goal, final plan, events, model errors) is gone; its
-- counts and costs stay.
ALTER TABLE agent_runs ADD COLUMN content_expired boolean NOT NULL DEFAULT false;
CREATE INDEX agent_runs_retention_idx ON agent_runs (started_at) WHERE NOT content_expired;
