-- The admin console's browser sign-in. Tokens are stored by their SHA-256 only; each table is
-- swept of expired rows by the gateway.

-- One-time sign-in links (`hearthctl admin link`, dev mode only): used once, within minutes.
CREATE TABLE admin_console_links (
    token_hash bytea PRIMARY KEY,
    user_id uuid NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at timestamptz
);
CREATE INDEX admin_console_links_by_expiry ON admin_console_links (expires_at);

-- Sign in with Apple from the browser: the `state` sent to Apple (by its hash) and the raw nonce
-- whose SHA-256 Apple puts into the identity token. Used once.
CREATE TABLE admin_console_apple_states (
    state_hash bytea PRIMARY KEY,
    nonce text NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE INDEX admin_console_apple_states_by_expiry ON admin_console_apple_states (expires_at);

-- Console sessions: the cookie holds the token, this row its hash, the CSRF token every form must
-- echo, and when it ends (expiry or sign-out).
CREATE TABLE admin_console_sessions (
    session_hash bytea PRIMARY KEY,
    user_id uuid NOT NULL,
    csrf_token text NOT NULL,
    -- dev_link or apple
    method text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    signed_out_at timestamptz
);
CREATE INDEX admin_console_sessions_by_expiry ON admin_console_sessions (expires_at);

-- Read model of the admin-audit topic (projection `admin_actions`): who did what, from the events.
CREATE TABLE admin_actions (
    event_id uuid PRIMARY KEY,
    admin_id uuid NOT NULL,
    -- redrive
    action text NOT NULL,
    -- What it acted on: for a redrive the parked position `projection:topic/partition@offset`.
    target text NOT NULL,
    detail jsonb NOT NULL,
    occurred_at timestamptz NOT NULL
);
CREATE INDEX admin_actions_by_target ON admin_actions (target);
CREATE INDEX admin_actions_by_time ON admin_actions (occurred_at DESC);
