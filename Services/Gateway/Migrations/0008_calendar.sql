-- Read model of the household calendar: calendar.event_created|updated|deleted and the chore
-- occurrences of chore.scheduled, one row per entry (recurrences are expanded when read).
-- Deleted entries stay as tombstones so their sequence keeps growing and a late update of a
-- deleted entry is recognised.
CREATE TABLE calendar_entries (
    entry_id uuid PRIMARY KEY,
    -- event (a calendar.* entry) or chore (a chore.scheduled occurrence)
    source text NOT NULL,
    household_id uuid,
    owner_user_id uuid NOT NULL,
    title text NOT NULL,
    starts_at timestamptz NOT NULL,
    ends_at timestamptz NOT NULL,
    all_day boolean NOT NULL,
    time_zone text NOT NULL,
    kind text NOT NULL,
    member_ids uuid[] NOT NULL,
    assignee text,
    location text,
    rrule text,
    sequence integer NOT NULL,
    updated_at timestamptz NOT NULL,
    deleted boolean NOT NULL DEFAULT false,
    last_event_id uuid NOT NULL
);
CREATE INDEX calendar_entries_household_idx ON calendar_entries (household_id) WHERE NOT deleted;
CREATE INDEX calendar_entries_owner_idx ON calendar_entries (owner_user_id) WHERE NOT deleted;

-- Read model of calendar.feed_created / calendar.feed_revoked: secret iCalendar feed URLs, found
-- by the SHA-256 of their token (the token itself is never stored).
CREATE TABLE calendar_feeds (
    feed_id uuid PRIMARY KEY,
    token_sha256 text NOT NULL UNIQUE,
    household_id uuid,
    user_id uuid NOT NULL,
    created_at timestamptz NOT NULL,
    revoked_at timestamptz
);

-- Operational secret store, NOT an event-sourced read model: each user's Google refresh token,
-- AES-GCM sealed with HEARTH_SECRETS_KEY (the user id bound as additional data). Written by the
-- gateway's OAuth callback, read by calendar-sync, deleted on disconnect; no projection or
-- replay touches it, because a secret must be destroyable and the event log forgets nothing.
CREATE TABLE google_credentials (
    user_id uuid PRIMARY KEY,
    sealed_refresh_token bytea NOT NULL,
    scope text NOT NULL,
    updated_at timestamptz NOT NULL
);
