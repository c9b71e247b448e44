-- Confirmation codes for DELETE /v1/me without a fresh sign-in (POST /v1/me/deletion-code). The
-- digits are not stored: they are derived from the code's id (AccountDeletionCode). A code is
-- spent when used, when a newer one is issued, or after too many wrong tries; rows go a day
-- after they expire, and with the user's erasure.
CREATE TABLE account_deletion_codes (
    code_id uuid PRIMARY KEY,
    user_id uuid NOT NULL,
    issued_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    failed_attempts int NOT NULL DEFAULT 0,
    spent_at timestamptz,
    spent_because text
);
CREATE INDEX account_deletion_codes_user_idx ON account_deletion_codes (user_id, issued_at DESC);
