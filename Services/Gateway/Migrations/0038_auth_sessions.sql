-- Sign-in sessions: one row per sign-in, the family every refresh token it hands out belongs to.
-- Revoking the row (logout, a reused refresh token, the account's deletion) ends the session:
-- its refresh tokens stop working at once and its access tokens at their next request.
CREATE TABLE auth_sessions (
    session_id uuid PRIMARY KEY,
    user_id uuid NOT NULL,
    -- The sign-in itself: refreshed access tokens keep it as `auth_time`.
    signed_in_at timestamptz NOT NULL,
    last_refreshed_at timestamptz,
    revoked_at timestamptz,
    revoked_reason text CHECK (revoked_reason IN ('logout', 'logout_everywhere', 'refresh_token_reused', 'account_deletion'))
);
CREATE INDEX auth_sessions_open_by_user ON auth_sessions (user_id) WHERE revoked_at IS NULL;

-- Refresh tokens by their SHA-256 (the token itself is never stored). A token is used once:
-- `used_at` is kept until it expires, so a second use is recognised as reuse and not as unknown.
CREATE TABLE auth_refresh_tokens (
    token_hash bytea PRIMARY KEY,
    session_id uuid NOT NULL REFERENCES auth_sessions (session_id) ON DELETE CASCADE,
    issued_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at timestamptz
);
CREATE INDEX auth_refresh_tokens_by_session ON auth_refresh_tokens (session_id);
CREATE INDEX auth_refresh_tokens_by_expiry ON auth_refresh_tokens (expires_at);
