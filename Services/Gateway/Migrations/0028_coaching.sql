-- Coaches (user.registered v2 `role`) and their relationships with client households, from the
-- coach.* events on the users topic (projection `coaching`).
ALTER TABLE users ADD COLUMN role text NOT NULL DEFAULT 'member';

-- A coach's single-use invites; `accepted_household` once an owner redeemed one.
CREATE TABLE coach_invites (
    code text PRIMARY KEY,
    invite_id uuid NOT NULL UNIQUE,
    coach_id uuid NOT NULL,
    prospect_id uuid,
    expires_at timestamptz NOT NULL,
    accepted_household uuid,
    accepted_at timestamptz
);
CREATE INDEX coach_invites_coach_idx ON coach_invites (coach_id);

-- People a coach met before they are clients; `household_id` once their household accepted.
CREATE TABLE coach_prospects (
    prospect_id uuid PRIMARY KEY,
    coach_id uuid NOT NULL,
    name text NOT NULL,
    note text,
    household_id uuid,
    added_at timestamptz NOT NULL
);
CREATE INDEX coach_prospects_coach_idx ON coach_prospects (coach_id, added_at);

-- One row per (coach, household) ever related; `ended_at` set while it is over (a new
-- acceptance starts it again). `scope` is the CoachScope JSON.
CREATE TABLE coach_clients (
    coach_id uuid NOT NULL,
    household_id uuid NOT NULL,
    scope jsonb NOT NULL,
    started_at timestamptz NOT NULL,
    ended_at timestamptz,
    last_event_id uuid NOT NULL,
    PRIMARY KEY (coach_id, household_id)
);
CREATE INDEX coach_clients_household_idx ON coach_clients (household_id);

-- Who may read a household's chats: its users, and the coaches it works with now. Every chat
-- access check (routes, search, the notifier's pushes) joins this one definition.
CREATE VIEW household_chat_access AS
    SELECT user_id, household_id FROM user_households
    UNION
    SELECT coach_id, household_id FROM coach_clients WHERE ended_at IS NULL;
