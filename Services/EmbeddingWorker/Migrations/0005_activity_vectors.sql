-- The activity moderation pipeline's memory (ActivityModerationProjection): every activity of
-- the feed and every submission still in play, embedded with the worker's model, so a new
-- submission is compared with all of them. A read model of the `activities` topic: replay
-- rebuilds it (embedding again), and decisions come back as `activity.moderated` events.
CREATE TABLE activity_vectors (
    -- The activity's id for the library's, `submission:<uuid>` for a submission.
    key text PRIMARY KEY,
    -- The id it has in the feed; NULL while it is not in the feed (a submission waiting, held or
    -- refused).
    activity_id text,
    submission_id uuid,
    author_id uuid,
    title text NOT NULL,
    -- `live` (in the feed), `pending`, `held` or `rejected`.
    status text NOT NULL,
    model text NOT NULL,
    embedding vector NOT NULL
);
ALTER TABLE activity_vectors ALTER COLUMN embedding SET STORAGE PLAIN;
CREATE INDEX activity_vectors_activity ON activity_vectors (activity_id) WHERE activity_id IS NOT NULL;
CREATE INDEX activity_vectors_author ON activity_vectors (author_id) WHERE author_id IS NOT NULL;
