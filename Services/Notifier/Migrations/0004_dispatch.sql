-- The dispatcher's own state (not projections: replay never touches these).
--
-- reminder_dispatch: one row per reminder generation (its due_at) the dispatcher has taken up.
-- state: pending (waiting for next_attempt_at), sending (claimed by `owner` until
-- lease_until; an expired lease is claimable again: the holder crashed), done, cancelled.
CREATE TABLE reminder_dispatch (
    reminder_id uuid PRIMARY KEY,
    due_at timestamptz NOT NULL,
    state text NOT NULL,
    next_attempt_at timestamptz NOT NULL,
    lease_until timestamptz,
    owner text,
    attempts integer NOT NULL DEFAULT 0,
    -- when quiet hours moved it: the end of the window it waited for
    deferred_until timestamptz,
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX reminder_dispatch_claimable_idx ON reminder_dispatch (next_attempt_at) WHERE state IN ('pending', 'sending');

-- One row per delivery that succeeded or failed for good, keyed by reminder generation, channel
-- and target: a claim that finds a row here does not deliver there again.
CREATE TABLE notification_deliveries (
    reminder_id uuid NOT NULL,
    due_at timestamptz NOT NULL,
    channel text NOT NULL,
    target text NOT NULL,
    -- sent or failed
    outcome text NOT NULL,
    attempts integer NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (reminder_id, due_at, channel, target)
);

-- Every attempt, as it was published (or is about to be: `published` false rows are re-published
-- at start-up, so an outcome recorded before a crash still becomes an event).
CREATE TABLE notification_log (
    log_id bigserial PRIMARY KEY,
    notification_id uuid NOT NULL,
    reminder_id uuid NOT NULL,
    user_id uuid NOT NULL,
    channel text NOT NULL,
    target text,
    attempt integer NOT NULL,
    -- sent or failed
    outcome text NOT NULL,
    due_at timestamptz NOT NULL,
    lateness_ms bigint NOT NULL,
    error text,
    will_retry boolean NOT NULL DEFAULT false,
    title text NOT NULL,
    body text,
    published boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notification_log_reminder_idx ON notification_log (reminder_id);
CREATE INDEX notification_log_unpublished_idx ON notification_log (log_id) WHERE NOT published;

-- Consecutive failures per webhook; past the limit the webhook is disabled (webhook.disabled).
CREATE TABLE webhook_health (
    webhook_id uuid PRIMARY KEY,
    consecutive_failures integer NOT NULL,
    disabled_at timestamptz,
    last_error text
);
