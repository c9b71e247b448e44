-- Read model of the users topic (user.registered, user.profile_updated): one row per user.
CREATE TABLE users (
    user_id uuid PRIMARY KEY,
    -- apple, device or dev; null only if a profile update was seen without a registration
    provider text,
    -- Apple's sub or the dev name; null for anonymous devices
    subject text,
    display_name text,
    locale text,
    time_zone text,
    -- occurred_at of the first event of the user: deterministic in the events, never now()
    registered_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    last_event_id uuid NOT NULL
);
CREATE INDEX users_registered_at_idx ON users (registered_at, user_id);

-- Read model of user.household_joined: the one household each user belongs to. Authorization
-- reads it on every household-scoped request.
CREATE TABLE user_households (
    user_id uuid PRIMARY KEY,
    household_id uuid NOT NULL,
    -- created or invite
    via text NOT NULL,
    joined_at timestamptz NOT NULL,
    last_event_id uuid NOT NULL
);
CREATE INDEX user_households_household_id_idx ON user_households (household_id);
