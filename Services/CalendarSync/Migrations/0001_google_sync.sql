-- calendar-sync's state of the one-way mirror into Google Calendar. Written by the google_sync
-- consumer in the same transaction as its Kafka offsets, but NOT a replayable read model: each
-- row records what Google answered (ids, etags), and rebuilding it would mean calling Google
-- again. Deliberately absent from ReadModelCatalogue, so `hearthctl replay` never runs it.

-- Each user's link as the google.link_* events (and calendar-sync's own invalid_grant) left it.
CREATE TABLE google_links (
    user_id uuid PRIMARY KEY,
    household_id uuid,
    calendar_id text NOT NULL,
    -- connected, broken or disconnected
    status text NOT NULL,
    reason text,
    changed_at timestamptz NOT NULL
);
CREATE INDEX google_links_household_idx ON google_links (household_id) WHERE status = 'connected';

-- Hearth entry ↔ Google event, per linked user.
CREATE TABLE calendar_links (
    hearth_id uuid NOT NULL,
    user_id uuid NOT NULL,
    calendar_id text NOT NULL,
    google_event_id text NOT NULL,
    etag text,
    -- synced, deleted or failed
    status text NOT NULL,
    last_error text,
    last_synced_at timestamptz NOT NULL,
    -- the Hearth event last mirrored (so a redelivered one is recognised)
    last_event_id uuid NOT NULL,
    PRIMARY KEY (hearth_id, user_id)
);
