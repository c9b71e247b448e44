-- The activity feed (ActivitiesProjection, from the single-partition `activities` topic). A
-- row's `revision` is the offset of the event that last changed it, so "everything after
-- revision R" is an incremental sync, and the feed's cursor is the greatest revision.
CREATE TABLE activities (
    activity_id text PRIMARY KEY,
    -- `library` or `community` (an approved submission, `submission_id`).
    source text NOT NULL,
    submission_id uuid,
    title text NOT NULL,
    description text NOT NULL,
    time_minutes integer NOT NULL,
    energy text NOT NULL,
    contexts text[] NOT NULL,
    category text NOT NULL,
    min_age integer NOT NULL,
    max_age integer NOT NULL,
    repeatability text NOT NULL,
    -- A withdrawn activity stays as a tombstone for clients syncing with `since`.
    withdrawn boolean NOT NULL DEFAULT false,
    revision bigint NOT NULL
);
CREATE INDEX activities_revision ON activities (revision);
CREATE INDEX activities_submission ON activities (submission_id) WHERE submission_id IS NOT NULL;

-- Submissions to the feed and their moderation (`activity.submitted`, `activity.moderated`).
-- The words are the author's (NULL once their key is gone); the row goes with `user.erased`.
CREATE TABLE activity_submissions (
    submission_id uuid PRIMARY KEY,
    author_id uuid NOT NULL,
    content jsonb,
    -- `pending`, `approved`, `rejected` or `held`.
    status text NOT NULL,
    reason text,
    note text,
    activity_id text,
    nearest_activity_id text,
    similarity double precision,
    moderator text,
    submitted_at timestamptz NOT NULL,
    decided_at timestamptz
);
CREATE INDEX activity_submissions_author ON activity_submissions (author_id);
CREATE INDEX activity_submissions_held ON activity_submissions (submitted_at) WHERE status = 'held';

-- Operational state of the gateway, NOT a read model: submissions admitted per author (a device
-- or an account) and UTC day, counted atomically at admission so every gateway instance enforces
-- one daily limit (HEARTH_ACTIVITY_SUBMISSIONS_PER_DAY) before the event is even projected, and
-- the same for cloud idea requests. Replay ignores it.
CREATE TABLE activity_daily_usage (
    user_id uuid NOT NULL,
    action text NOT NULL,
    day date NOT NULL,
    used integer NOT NULL,
    PRIMARY KEY (user_id, action, day)
);
