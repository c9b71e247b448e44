-- The latest state of every household calendar entry as calendar-sync has seen it, so that a
-- user who links Google after entries exist gets them mirrored too (a backfill on connect).
CREATE TABLE google_sync_entries (
    hearth_id uuid PRIMARY KEY,
    household_id uuid,
    owner_user_id uuid NOT NULL,
    -- the Calendar API event resource Hearth would send
    body jsonb NOT NULL,
    deleted boolean NOT NULL DEFAULT false,
    last_event_id uuid NOT NULL
);
CREATE INDEX google_sync_entries_household_idx ON google_sync_entries (household_id) WHERE NOT deleted;
CREATE INDEX google_sync_entries_owner_idx ON google_sync_entries (owner_user_id) WHERE NOT deleted;
