-- What each user does with the activity feed (ActivityHistoryProjection, topic
-- `activity-history`): favourites, what they did (with the context they noted), their
-- preferences. Everything of a user goes with `user.erased`.
CREATE TABLE activity_favourites (
    user_id uuid NOT NULL,
    activity_id text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, activity_id)
);

CREATE TABLE activity_history (
    entry_id uuid PRIMARY KEY,
    user_id uuid NOT NULL,
    activity_id text NOT NULL,
    completed_at timestamptz NOT NULL,
    context jsonb
);
CREATE INDEX activity_history_user ON activity_history (user_id, completed_at DESC, entry_id DESC);

CREATE TABLE activity_prefs (
    user_id uuid PRIMARY KEY,
    prefs jsonb,
    updated_at timestamptz NOT NULL
);
