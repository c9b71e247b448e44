-- Read model of feedback.given: one row per piece of feedback on an assistant run.
CREATE TABLE feedback (
    feedback_id uuid PRIMARY KEY,
    run_id text NOT NULL,
    user_id uuid NOT NULL,
    household_id uuid,
    -- up, down or edit
    signal text NOT NULL,
    comment text,
    payload jsonb,
    given_at timestamptz NOT NULL,
    event_id uuid NOT NULL
);
CREATE INDEX feedback_run_id_idx ON feedback (run_id);
CREATE INDEX feedback_user_id_idx ON feedback (user_id, given_at);
