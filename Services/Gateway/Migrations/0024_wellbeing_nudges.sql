-- Not a projection table: the wellbeing schedule's record of the check-in nudges it planned, one
-- per user and local day, so a nudge is requested once however many passes see it due.
CREATE TABLE wellbeing_nudges_planned (
    user_id uuid NOT NULL,
    day date NOT NULL,
    planned_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, day)
);
