-- Read model of the tracking topic (projection `tracking_logs`): a child's logs, profile,
-- allergen exposures and check-ins, and the tracking settings.

-- Every log of every kind, deleted ones kept as tombstones so a syncing client learns of them.
-- change_offset is the offset of the last event that changed the row: a child's events are all
-- on one partition (keyed by the child's household), so it orders the child's changes and replays to the
-- same value (the sync cursor).
CREATE TABLE tracking_logs (
    log_id uuid PRIMARY KEY,
    child_id uuid NOT NULL,
    household_id uuid NOT NULL,
    -- feed, sleep, diaper, growth, medication, food, photo
    kind text NOT NULL,
    -- the log's own time (ordering is by it, not by arrival)
    at timestamptz NOT NULL,
    -- sleeps and nursing sessions
    ended_at timestamptz,
    detail jsonb NOT NULL,
    logged_by uuid NOT NULL,
    client_id text,
    version integer NOT NULL,
    logged_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    updated_by uuid NOT NULL,
    deleted boolean NOT NULL DEFAULT false,
    change_offset bigint NOT NULL,
    last_event_id uuid NOT NULL
);
CREATE UNIQUE INDEX tracking_logs_client_idx ON tracking_logs (child_id, client_id) WHERE client_id IS NOT NULL;
CREATE INDEX tracking_logs_child_at_idx ON tracking_logs (child_id, at DESC, log_id);
CREATE INDEX tracking_logs_child_change_idx ON tracking_logs (child_id, change_offset);
CREATE INDEX tracking_logs_household_idx ON tracking_logs (household_id);

-- What growth percentiles need beyond the member's birth date.
CREATE TABLE child_profiles (
    child_id uuid PRIMARY KEY,
    household_id uuid NOT NULL,
    -- female or male
    sex text NOT NULL,
    updated_by uuid NOT NULL
);

-- High-risk allergen check-ins: one per food log that holds such allergens.
CREATE TABLE allergen_check_ins (
    check_in_id uuid PRIMARY KEY,
    food_log_id uuid NOT NULL,
    child_id uuid NOT NULL,
    household_id uuid NOT NULL,
    allergens text[] NOT NULL,
    logged_at timestamptz NOT NULL,
    -- null until answered: fine or reaction
    outcome text,
    severity text,
    symptoms text[],
    answered_by uuid,
    answered_at timestamptz
);
CREATE INDEX allergen_check_ins_child_idx ON allergen_check_ins (child_id);

-- Per child and allergen: first exposure and, once one was reported, the reaction that marks it
-- (derived from the food logs and check-in answers whenever either changes).
CREATE TABLE child_allergens (
    child_id uuid NOT NULL,
    household_id uuid NOT NULL,
    allergen text NOT NULL,
    first_exposed_at timestamptz,
    first_food_log_id uuid,
    exposures integer NOT NULL,
    reacted_at timestamptz,
    reaction_severity text,
    -- food_log or check_in
    reaction_source text,
    reaction_log_id uuid,
    reported_by uuid,
    PRIMARY KEY (child_id, allergen)
);
CREATE INDEX child_allergens_household_idx ON child_allergens (household_id) WHERE reacted_at IS NOT NULL;

CREATE TABLE tracking_settings (
    household_id uuid PRIMARY KEY,
    allergen_check_ins boolean NOT NULL,
    check_in_delay_minutes integer NOT NULL,
    updated_by uuid NOT NULL
);

CREATE TABLE caregiver_reminders (
    user_id uuid PRIMARY KEY,
    household_id uuid NOT NULL,
    feed_reminders boolean NOT NULL,
    feed_lead_minutes integer NOT NULL,
    medication_reminders boolean NOT NULL,
    medication_breaks_quiet_hours boolean NOT NULL
);

-- Photo bytes and thumbnails (not a read model: a replay leaves them). The photo's event names
-- it by id and hash; the household's erasure removes its photos.
CREATE TABLE tracking_photos (
    photo_id uuid PRIMARY KEY,
    household_id uuid NOT NULL,
    child_id uuid NOT NULL,
    content_type text NOT NULL,
    sha256 text NOT NULL,
    image bytea NOT NULL,
    thumbnail bytea NOT NULL,
    uploaded_by uuid NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tracking_photos_household_idx ON tracking_photos (household_id);
