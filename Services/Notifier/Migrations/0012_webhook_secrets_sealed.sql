-- Webhook secrets leave this table's plaintext: a webhook names its sealed secret in the
-- gateway's `webhook_secrets` (`secret_ref`), or, registered by an old event that carried the
-- secret, holds it sealed here (`legacy_secret_sealed`). `secret` keeps a row written before this
-- migration until the notifier seals it at start-up (`LegacyWebhookSecrets`), then is NULL.
ALTER TABLE notification_webhooks
    ADD COLUMN secret_ref uuid,
    ADD COLUMN legacy_secret_sealed bytea,
    ALTER COLUMN secret DROP NOT NULL;
