-- A redrive counts once its copy was sent (`sent_at`); a claim left unsent (the gateway stopped
-- between claiming and sending) can be claimed again after two minutes instead of blocking the
-- event for ever.
ALTER TABLE admin_redrives ADD COLUMN sent_at timestamptz;
-- The redrives audited before claims existed count as sent.
INSERT INTO admin_redrives (projection, topic, partition, "offset", admin_id, claimed_at, sent_at)
SELECT detail->>'projection', detail->>'topic', (detail->>'partition')::int, (detail->>'offset')::bigint, admin_id, occurred_at, occurred_at
FROM admin_actions WHERE action = 'redrive'
ON CONFLICT DO NOTHING;
UPDATE admin_redrives SET sent_at = claimed_at WHERE sent_at IS NULL;

-- A user put back on the default keeps a row with no quota, so an older decision delivered again
-- (a redrive of the audit topic) cannot bring an earlier quota back: the newest decision wins.
ALTER TABLE assist_quota_overrides ALTER COLUMN monthly_quota DROP NOT NULL;

-- Users the projection saw erased: a quota decision applied after the erasure (replays interleave
-- the admin-audit and users topics in no fixed order) leaves no row for them.
CREATE TABLE admin_erased_users (
    user_id uuid PRIMARY KEY
);
