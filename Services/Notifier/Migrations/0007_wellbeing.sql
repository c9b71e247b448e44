-- The wellbeing space's delivery windows (projection `reminders`, from wellbeing.settings_updated):
-- a push of the space waits until the user's window opens, and is silent (a badge) when they
-- asked for badge-only pushes.
CREATE TABLE wellbeing_windows (
    user_id uuid PRIMARY KEY,
    window_start text NOT NULL,
    window_end text NOT NULL,
    time_zone text NOT NULL,
    badge_only boolean NOT NULL
);

-- A silent reminder is a push with a badge and nothing shown. Set by no projection today: the
-- dispatcher decides it for the wellbeing space's pushes from the user's settings when it sends.
ALTER TABLE reminders ADD COLUMN silent boolean NOT NULL DEFAULT false;
