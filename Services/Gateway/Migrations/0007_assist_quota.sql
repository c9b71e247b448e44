-- Operational state of the gateway, NOT a read model: assist runs admitted per user and calendar
-- month (UTC), counted atomically at admission so every gateway instance enforces one quota
-- (HEARTH_MONTHLY_QUOTA) without waiting for the run to be projected. Replay ignores it; it is
-- logged (not UNLOGGED) because losing it would hand out a month's quota again.
CREATE TABLE assist_quota_usage (
    user_id uuid NOT NULL,
    month date NOT NULL,
    used integer NOT NULL,
    PRIMARY KEY (user_id, month)
);
