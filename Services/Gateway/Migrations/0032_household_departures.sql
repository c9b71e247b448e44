-- Households a user left or was removed from (user.household_left), until they join it again: an
-- upsert by someone who left the household their first upsert made starts a new one rather than
-- joining it again, while a first upsert retried before its join is projected still finds it.
CREATE TABLE household_departures (
    user_id uuid NOT NULL,
    household_id uuid NOT NULL,
    left_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, household_id)
);
