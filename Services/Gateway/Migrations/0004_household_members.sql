-- Read model of household.member_added: the people a household plans for. Ages are derived from
-- birthdate when read, never stored.
CREATE TABLE household_members (
    member_id uuid PRIMARY KEY,
    household_id uuid NOT NULL,
    name text NOT NULL,
    role text NOT NULL,
    birthdate date,
    added_by uuid NOT NULL,
    added_at timestamptz NOT NULL,
    last_event_id uuid NOT NULL
);
CREATE INDEX household_members_household_id_idx ON household_members (household_id, added_at, member_id);

-- Read model of household.invite_created / household.invite_accepted.
CREATE TABLE household_invites (
    code text PRIMARY KEY,
    household_id uuid NOT NULL,
    created_by uuid NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    accepted_by uuid,
    accepted_at timestamptz
);
CREATE INDEX household_invites_household_id_idx ON household_invites (household_id);
