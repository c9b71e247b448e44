-- Read model of notification.sent (channel inbox) and notification.read: the in-app inbox.
-- Owned by the `notification_inbox` projection; the gateway serves it.
CREATE TABLE notification_inbox (
    notification_id uuid PRIMARY KEY,
    user_id uuid NOT NULL,
    reminder_id uuid NOT NULL,
    title text NOT NULL,
    body text,
    -- occurred_at of the notification.sent event
    created_at timestamptz NOT NULL,
    read_at timestamptz
);
CREATE INDEX notification_inbox_user_idx ON notification_inbox (user_id, created_at DESC, notification_id DESC);
CREATE INDEX notification_inbox_unread_idx ON notification_inbox (user_id, created_at DESC, notification_id DESC) WHERE read_at IS NULL;
