-- OAuth states already redeemed (their nonce): a state works once. Rows older than a state's
-- lifetime are useless (an old state is refused as expired) and are swept on each callback.
CREATE TABLE google_oauth_states_used (
    nonce text PRIMARY KEY,
    used_at timestamptz NOT NULL DEFAULT now()
);
