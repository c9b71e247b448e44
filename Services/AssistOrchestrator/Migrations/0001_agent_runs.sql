-- Read models of assist.events (projection `assist_runs`). Every column comes from the events
-- (times are the events' occurred_at), so a replay rebuilds them exactly.

-- One row per assist run, in the seed's shape (agent_runs with token and cost tracking).
CREATE TABLE agent_runs (
    run_id uuid PRIMARY KEY,
    user_id uuid NOT NULL,
    household_id uuid,
    -- meals, chores or routines; graph is the seed's name for it ("meals_v1")
    mode text NOT NULL,
    graph text NOT NULL,
    -- running, succeeded, refused or failed
    state text NOT NULL,
    -- PII-redacted before it was ever published
    goal text NOT NULL,
    days integer NOT NULL,
    start_date date NOT NULL,
    -- final, refusal or error, and that event's data (the final payload)
    terminal_event text,
    final jsonb,
    started_at timestamptz NOT NULL,
    finished_at timestamptz,
    duration_ms integer,
    input_tokens integer NOT NULL DEFAULT 0,
    output_tokens integer NOT NULL DEFAULT 0,
    total_tokens integer NOT NULL DEFAULT 0,
    cost_cents numeric(14, 6) NOT NULL DEFAULT 0,
    -- {"provider/model": calls}
    models_used jsonb NOT NULL DEFAULT '{}',
    -- highest seq seen: the stream is complete when it is the seq of `done`
    last_seq integer NOT NULL DEFAULT 0
);
CREATE INDEX agent_runs_user_started_idx ON agent_runs (user_id, started_at);
CREATE INDEX agent_runs_started_idx ON agent_runs (started_at);

-- One row per model call of a run (fallbacks and failures included), as the seed's run_metrics.
CREATE TABLE run_metrics (
    run_id uuid NOT NULL,
    attempt integer NOT NULL,
    phase text NOT NULL,
    provider text NOT NULL,
    model text NOT NULL,
    input_tokens integer NOT NULL,
    output_tokens integer NOT NULL,
    cost_cents numeric(14, 6) NOT NULL,
    latency_ms integer NOT NULL,
    -- ok, or why the router moved on
    outcome text NOT NULL,
    error text,
    -- {"mode", "provider", "model"} as the seed stores it
    model_meta jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (run_id, attempt)
);
CREATE INDEX run_metrics_created_at_idx ON run_metrics (created_at);

-- Every streamed event of every run, for replay (GET /v1/assist/runs/{id}/events). `data` is
-- json, not jsonb, so a replay sends the text exactly as the live stream did.
CREATE TABLE assist_run_events (
    run_id uuid NOT NULL,
    seq integer NOT NULL,
    event text NOT NULL,
    data json NOT NULL,
    elapsed_ms integer,
    occurred_at timestamptz NOT NULL,
    PRIMARY KEY (run_id, seq)
);
