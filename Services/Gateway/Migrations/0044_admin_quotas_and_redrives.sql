-- Read model of admin.user_quota_set (projection `admin_actions`): a user's own monthly quota of
-- assist runs, set by an administrator; without a row the default (HEARTH_MONTHLY_QUOTA) applies.
CREATE TABLE assist_quota_overrides (
    user_id uuid PRIMARY KEY,
    monthly_quota integer NOT NULL CHECK (monthly_quota >= 0),
    set_by uuid NOT NULL,
    set_at timestamptz NOT NULL
);
-- Each decision is also a row of admin_actions (action `quota`, target `user:<id>`).

-- One redrive per parked position, claimed before the copy is sent: a double click or a retry
-- does not send the event to every consumer again. (An event that fails again is parked at its
-- new position, which can be redriven in turn.) Written by the gateway, not projected.
CREATE TABLE admin_redrives (
    projection text NOT NULL,
    topic text NOT NULL,
    partition integer NOT NULL,
    "offset" bigint NOT NULL,
    admin_id uuid NOT NULL,
    claimed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (projection, topic, partition, "offset")
);
