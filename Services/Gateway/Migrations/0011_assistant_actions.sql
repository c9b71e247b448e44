-- Read model of assistant.action_proposed / action_executed / action_rejected: the assistant's
-- tool calls waiting for (or past) a household member's decision.
-- status: proposed, executed, rejected. A proposed action past expires_at has lapsed; it is shown
-- as expired and can no longer be confirmed (no event records the lapse: time alone decides it).
CREATE TABLE assistant_actions (
    action_id uuid PRIMARY KEY,
    run_id uuid NOT NULL,
    conversation_id uuid NOT NULL,
    household_id uuid NOT NULL,
    proposed_for uuid NOT NULL,
    tool text NOT NULL,
    arguments jsonb NOT NULL,
    summary text NOT NULL,
    proposed_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    status text NOT NULL,
    decided_by uuid,
    decided_at timestamptz,
    effect_type text,
    effect_id uuid
);
CREATE INDEX assistant_actions_household_idx ON assistant_actions (household_id, proposed_at DESC, action_id);

-- The audit log: one row per decision on an action, never updated. Who confirmed (or rejected)
-- what, when, and what the execution created.
CREATE TABLE assistant_audit_log (
    action_id uuid PRIMARY KEY,
    household_id uuid NOT NULL,
    decision text NOT NULL,
    tool text NOT NULL,
    summary text NOT NULL,
    arguments jsonb NOT NULL,
    proposed_for uuid NOT NULL,
    decided_by uuid NOT NULL,
    decided_at timestamptz NOT NULL,
    effect_type text,
    effect_id uuid,
    event_id uuid NOT NULL
);
CREATE INDEX assistant_audit_log_household_idx ON assistant_audit_log (household_id, decided_at DESC, action_id);
