-- Webhook signing secrets, sealed with HEARTH_SECRETS_KEY (AES-GCM, bound to the webhook and the
-- row): `webhook.registered` and `webhook.secret_rotated` name a row here instead of carrying the
-- secret, so no secret sits in Kafka, the archive or a replay. The notifier reads the row when it
-- delivers. A rotation removes the webhook's older rows; removal and erasure remove them all.
CREATE TABLE webhook_secrets (
    secret_ref uuid PRIMARY KEY,
    webhook_id uuid NOT NULL,
    user_id uuid NOT NULL,
    sealed bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_secrets_by_webhook ON webhook_secrets (webhook_id);
CREATE INDEX webhook_secrets_by_user ON webhook_secrets (user_id);
