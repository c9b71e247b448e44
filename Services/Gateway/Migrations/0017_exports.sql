-- Read model of user.export_requested: the exports asked for (replayable).
CREATE TABLE export_requests (
    export_id uuid PRIMARY KEY,
    user_id uuid NOT NULL,
    -- user or household
    scope text NOT NULL,
    household_id uuid,
    requested_at timestamptz NOT NULL
);
CREATE INDEX export_requests_user_idx ON export_requests (user_id);

-- The archives the export worker built (not a read model: a replay leaves them; an archive is
-- deleted with its user, and after a week).
CREATE TABLE export_archives (
    export_id uuid PRIMARY KEY,
    user_id uuid NOT NULL,
    archive bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX export_archives_user_idx ON export_archives (user_id);
CREATE INDEX export_archives_created_idx ON export_archives (created_at);
