-- Command-side state of the gateway, NOT an event-sourced read model: who claimed each invite code
-- before its acceptance was published. Single use has to be decided before the events exist (two
-- users, on one gateway or two, could otherwise both read the code as unused and both publish an
-- acceptance); the primary key decides it atomically. No projection owns it and replay never
-- touches it. Claims of accepted codes are kept: a code is used once, forever.
CREATE TABLE invite_claims (
    code text PRIMARY KEY,
    user_id uuid NOT NULL,
    claimed_at timestamptz NOT NULL DEFAULT now()
);
