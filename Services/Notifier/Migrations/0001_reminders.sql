-- Read model of reminder.requested / reminder.cancelled (reminders topic) and chore.scheduled
-- (chores topic): every reminder the notifier knows, pending or not. Owned by the `reminders`
-- projection; the dispatcher only reads it (its own state is in reminder_dispatch).
CREATE TABLE reminders (
    reminder_id uuid PRIMARY KEY,
    user_id uuid NOT NULL,
    household_id uuid,
    member_id uuid,
    title text NOT NULL,
    body text,
    due_at timestamptz NOT NULL,
    urgent boolean NOT NULL DEFAULT false,
    -- null: the user's enabled channels
    channels text[],
    -- api, calendar-sync, chore, assistant, ...
    source text NOT NULL,
    -- pending or cancelled
    status text NOT NULL,
    -- occurred_at of the last event that changed the row (never now())
    updated_at timestamptz NOT NULL,
    last_event_id uuid NOT NULL
);
CREATE INDEX reminders_pending_due_idx ON reminders (due_at) WHERE status = 'pending';
CREATE INDEX reminders_user_idx ON reminders (user_id, due_at);
