-- Read model of household.upserted: one row per household, as the last event left it.
CREATE TABLE households (
    household_id uuid PRIMARY KEY,
    name text,
    prefs jsonb NOT NULL,
    version integer NOT NULL,
    user_id text,
    -- how many household.upserted events were applied: proves exactly-once application
    changes integer NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    last_event_id uuid NOT NULL
);
CREATE INDEX households_user_id_idx ON households (user_id);
