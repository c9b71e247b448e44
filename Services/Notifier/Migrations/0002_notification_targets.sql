-- Read models of the notifications topic's target and preference events (device.*, webhook.*,
-- notification.settings_updated) and of user.profile_updated's time zone. Owned by the
-- `notification_targets` projection.
CREATE TABLE notification_devices (
    token text PRIMARY KEY,
    user_id uuid NOT NULL,
    platform text NOT NULL,
    -- sandbox or production
    environment text NOT NULL,
    active boolean NOT NULL,
    -- why it was deactivated: user, apns_unregistered, apns_bad_device_token
    removed_reason text,
    updated_at timestamptz NOT NULL
);
CREATE INDEX notification_devices_user_idx ON notification_devices (user_id) WHERE active;

CREATE TABLE notification_webhooks (
    webhook_id uuid PRIMARY KEY,
    user_id uuid NOT NULL,
    url text NOT NULL,
    secret text NOT NULL,
    events text[] NOT NULL,
    active boolean NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX notification_webhooks_user_idx ON notification_webhooks (user_id) WHERE active;

CREATE TABLE notification_settings (
    user_id uuid PRIMARY KEY,
    -- set by notification.settings_updated; wins over the profile's zone
    time_zone text,
    -- from user.profile_updated
    profile_time_zone text,
    -- local HH:MM, both or neither
    quiet_hours_start text,
    quiet_hours_end text,
    -- null: every channel
    channels text[],
    updated_at timestamptz NOT NULL
);
