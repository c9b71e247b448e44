-- Operational state of the gateway's rate limiter, NOT an event-sourced read model: counters of
-- requests per client and fixed one-minute window, shared by every gateway instance. No
-- projection owns it, replay never touches it, and it is fine to lose: UNLOGGED (no WAL, emptied
-- after a crash), and old windows are deleted by the gateway as it runs.
CREATE UNLOGGED TABLE rate_limit_counters (
    bucket text NOT NULL,
    window_start timestamptz NOT NULL,
    hits integer NOT NULL,
    PRIMARY KEY (bucket, window_start)
);
CREATE INDEX rate_limit_counters_window_start_idx ON rate_limit_counters (window_start);
