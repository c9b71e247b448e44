-- Command-side state of the gateway, NOT an event-sourced read model: the answers to requests sent
-- with an `Idempotency-Key`, so a client that retries (a timeout, a dropped connection) gets the
-- first answer instead of a second change. Scoped by user: one user's key never answers another's
-- request. A row without `completed_at` is a request in progress; rows expire after a day.
CREATE TABLE idempotency_keys (
    user_id uuid NOT NULL,
    key text NOT NULL,
    fingerprint text NOT NULL,
    -- The attempt holding the key: only it may complete or release it.
    claim_id uuid NOT NULL,
    status integer,
    content_type text,
    body bytea,
    created_at timestamptz NOT NULL DEFAULT now(),
    completed_at timestamptz,
    PRIMARY KEY (user_id, key)
);
CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at);
