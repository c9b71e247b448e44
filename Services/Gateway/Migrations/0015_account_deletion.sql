-- Account deletion (user.deletion_requested, user.deletion_cancelled, user.erased), kept on the
-- user's row. sessions_valid_after only ever moves forward: a restored account signs in again.
ALTER TABLE users
    ADD COLUMN deletion_requested_at timestamptz,
    ADD COLUMN erase_after timestamptz,
    ADD COLUMN erased_at timestamptz,
    ADD COLUMN sessions_valid_after timestamptz;

-- The eraser's question: whose grace period is over?
CREATE INDEX users_pending_erasure_idx ON users (erase_after)
    WHERE deletion_requested_at IS NOT NULL AND erased_at IS NULL;
