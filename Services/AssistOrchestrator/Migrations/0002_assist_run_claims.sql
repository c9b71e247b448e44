-- Operational state of the orchestrator, NOT a read model: which requests have been taken up.
-- A request is run only by whoever inserts its row, so a redelivered `assist.requested` (a
-- rebalance, a restart before the offset commit) never starts a second run. Replay ignores it.
CREATE TABLE assist_run_claims (
    run_id uuid PRIMARY KEY,
    user_id uuid NOT NULL,
    -- the orchestrator process that claimed it
    claimed_by text NOT NULL,
    claimed_at timestamptz NOT NULL DEFAULT now(),
    -- set once the run's last event is acknowledged by Kafka
    finished_at timestamptz
);
