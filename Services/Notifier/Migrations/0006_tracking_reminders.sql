-- What the `reminders` projection keeps of the tracking and households topics to plan tracking
-- reminders (allergen check-ins, next feeds, medication doses). Rebuilt with `reminders`.

-- A household's children, by name (the check-in says whom it is about).
CREATE TABLE tracking_children (
    child_id uuid PRIMARY KEY,
    household_id uuid NOT NULL,
    name text NOT NULL
);
CREATE INDEX tracking_children_household_idx ON tracking_children (household_id);

-- Live feeds (a deleted one is removed): the history a next feed is predicted from.
CREATE TABLE tracking_feed_times (
    log_id uuid PRIMARY KEY,
    child_id uuid NOT NULL,
    household_id uuid NOT NULL,
    at timestamptz NOT NULL,
    version integer NOT NULL
);
CREATE INDEX tracking_feed_times_child_idx ON tracking_feed_times (child_id, at);

-- Live doses: the latest of a medicine for a child, when it has an interval, plans a reminder for
-- the next dose to the caregiver who gave it.
CREATE TABLE tracking_doses (
    log_id uuid PRIMARY KEY,
    child_id uuid NOT NULL,
    household_id uuid NOT NULL,
    medicine text NOT NULL,
    at timestamptz NOT NULL,
    -- null: no next dose planned
    interval_hours double precision,
    given_by uuid NOT NULL,
    version integer NOT NULL
);
CREATE INDEX tracking_doses_child_idx ON tracking_doses (child_id, medicine, at);

-- Food logs, so that an edit or delete knows its version.
CREATE TABLE tracking_food_versions (
    log_id uuid PRIMARY KEY,
    household_id uuid NOT NULL,
    version integer NOT NULL
);
CREATE INDEX tracking_food_versions_household_idx ON tracking_food_versions (household_id);

CREATE TABLE tracking_household_settings (
    household_id uuid PRIMARY KEY,
    allergen_check_ins boolean NOT NULL,
    check_in_delay_minutes integer NOT NULL
);

CREATE TABLE tracking_caregivers (
    user_id uuid PRIMARY KEY,
    household_id uuid NOT NULL,
    feed_reminders boolean NOT NULL,
    feed_lead_minutes integer NOT NULL,
    medication_reminders boolean NOT NULL,
    medication_breaks_quiet_hours boolean NOT NULL,
    -- the caregiver's zone when they set these (null: UTC)
    time_zone text
);
CREATE INDEX tracking_caregivers_household_idx ON tracking_caregivers (household_id);
