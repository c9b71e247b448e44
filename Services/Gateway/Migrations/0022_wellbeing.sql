-- The wellbeing space (projection `wellbeing`, topic `wellbeing`): one user's own check-ins,
-- settings, quizzes, tips feed, exercises, practice scenarios, badges and weekly reflections.
-- Every row belongs to one user and is read only by that user.
CREATE TABLE wellbeing_checkins (
    checkin_id uuid PRIMARY KEY,
    user_id uuid NOT NULL,
    at timestamptz NOT NULL,
    mood integer NOT NULL,
    urge_level integer NOT NULL,
    trigger_context text,
    note text,
    exercise_completed boolean NOT NULL,
    triggers text[] NOT NULL,
    crisis boolean NOT NULL,
    logged_at timestamptz NOT NULL,
    edited_at timestamptz
);
CREATE INDEX wellbeing_checkins_user_at_idx ON wellbeing_checkins (user_id, at DESC, checkin_id DESC);

CREATE TABLE wellbeing_settings (
    user_id uuid PRIMARY KEY,
    window_start text NOT NULL,
    window_end text NOT NULL,
    time_zone text NOT NULL,
    badge_only boolean NOT NULL,
    no_autoplay boolean NOT NULL,
    interests text[] NOT NULL,
    reminder_cadence text NOT NULL
);

CREATE TABLE wellbeing_quizzes (
    quiz_id uuid PRIMARY KEY,
    user_id uuid NOT NULL,
    domain text NOT NULL,
    started_at timestamptz NOT NULL
);
CREATE INDEX wellbeing_quizzes_user_idx ON wellbeing_quizzes (user_id, started_at DESC);

-- One row per question asked, in the order asked; `chosen` once answered.
CREATE TABLE wellbeing_quiz_questions (
    quiz_id uuid NOT NULL,
    position integer NOT NULL,
    user_id uuid NOT NULL,
    question_id text NOT NULL,
    question jsonb NOT NULL,
    written_by text NOT NULL,
    chosen integer,
    correct boolean,
    answered_at timestamptz,
    PRIMARY KEY (quiz_id, position),
    UNIQUE (quiz_id, question_id)
);

CREATE TABLE wellbeing_tip_feed (
    feed_id uuid PRIMARY KEY,
    user_id uuid NOT NULL,
    tip_id text NOT NULL,
    reason text NOT NULL,
    at timestamptz NOT NULL
);
CREATE INDEX wellbeing_tip_feed_user_idx ON wellbeing_tip_feed (user_id, at DESC, feed_id DESC);

CREATE TABLE wellbeing_exercises (
    exercise_id uuid PRIMARY KEY,
    user_id uuid NOT NULL,
    kind text NOT NULL,
    theme text,
    title text,
    script jsonb,
    script_hash text,
    duration_sec double precision,
    written_by text,
    created_at timestamptz NOT NULL,
    completed_at timestamptz
);
CREATE INDEX wellbeing_exercises_user_idx ON wellbeing_exercises (user_id, created_at DESC);

CREATE TABLE wellbeing_simulations (
    simulation_id uuid PRIMARY KEY,
    user_id uuid NOT NULL,
    scenario_id text NOT NULL,
    choices text[] NOT NULL DEFAULT '{}',
    started_at timestamptz NOT NULL,
    finished_at timestamptz
);
CREATE INDEX wellbeing_simulations_user_idx ON wellbeing_simulations (user_id, started_at DESC);

CREATE TABLE wellbeing_badges (
    user_id uuid NOT NULL,
    badge_id text NOT NULL,
    earned_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, badge_id)
);

CREATE TABLE wellbeing_reflections (
    user_id uuid NOT NULL,
    week date NOT NULL,
    figures jsonb NOT NULL,
    recap text NOT NULL,
    written_by text NOT NULL,
    written_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, week)
);

-- Not a projection table: the recordings of guided-audio scripts, rendered by espeak-ng on first
-- request and kept by the script's hash (the same script renders once). Derivable from the
-- scripts in the events, so a rebuild does not need it; erasure removes a user's unshared ones.
CREATE TABLE wellbeing_audio (
    script_hash text PRIMARY KEY,
    audio bytea NOT NULL,
    duration_sec double precision NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
