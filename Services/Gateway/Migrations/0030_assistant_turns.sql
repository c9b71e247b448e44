-- Conversations with the assistant, turn by turn (projection `assistant_turns`, from
-- assistant.message_requested): the question as it was published (PII-redacted). A turn's answer
-- is its run's (`agent_runs.final`), read beside it. A run whose key expired takes its turn along.
CREATE TABLE assistant_turns (
    run_id uuid PRIMARY KEY,
    conversation_id uuid NOT NULL,
    user_id uuid NOT NULL,
    household_id uuid NOT NULL,
    question text NOT NULL,
    asked_at timestamptz NOT NULL
);
CREATE INDEX assistant_turns_conversation_idx ON assistant_turns (conversation_id, asked_at, run_id);
CREATE INDEX assistant_turns_user_idx ON assistant_turns (user_id, asked_at DESC);
