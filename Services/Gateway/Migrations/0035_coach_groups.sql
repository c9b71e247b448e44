-- A coach's group chats across client households (projection `coaching`, from
-- coach.group_created). The group's chat is a chat whose household_id is its own chat_id.
CREATE TABLE coach_groups (
    chat_id uuid PRIMARY KEY,
    coach_id uuid NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX coach_groups_coach_idx ON coach_groups (coach_id);

-- Each member, the client household they are in the group through, and when they were added.
CREATE TABLE coach_group_members (
    chat_id uuid NOT NULL,
    user_id uuid NOT NULL,
    household_id uuid NOT NULL,
    added_at timestamptz NOT NULL,
    PRIMARY KEY (chat_id, user_id)
);
CREATE INDEX coach_group_members_user_idx ON coach_group_members (user_id);

-- Who may read a chat's messages, by the chat's household id: a household's users and current
-- coaches; for a coach's group (household id = chat id), the coach, and each member while the
-- membership and the coaching they were added through last: a membership or a relationship
-- begun after they were added (they left and came back, the coaching ended and started again)
-- lets nobody back into the group. Still one definition every chat check joins (routes, search,
-- the chat list, the notifier's pushes).
CREATE OR REPLACE FUNCTION household_chat_access() RETURNS TABLE (user_id uuid, household_id uuid)
LANGUAGE sql STABLE AS $$
    SELECT user_id, household_id FROM user_households
    UNION
    SELECT coach_id, household_id FROM coach_clients WHERE ended_at IS NULL
    UNION
    SELECT coach_id, chat_id FROM coach_groups
    UNION
    SELECT m.user_id, m.chat_id FROM coach_group_members m
    JOIN coach_groups g ON g.chat_id = m.chat_id
    JOIN user_households uh ON uh.user_id = m.user_id AND uh.household_id = m.household_id AND uh.joined_at <= m.added_at
    JOIN coach_clients k ON k.coach_id = g.coach_id AND k.household_id = m.household_id AND k.ended_at IS NULL
        AND k.started_at <= m.added_at
$$;
