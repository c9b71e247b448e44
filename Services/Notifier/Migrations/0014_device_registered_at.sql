-- When a device's current registration began (kept when the same user registers it again, as the
-- app does on every launch; reset when the token comes back or moves to another user). An account
-- deletion code is pushed only to devices registered at least a day before it was asked for, so a
-- stolen token cannot register a phone of its own and receive the code there. Rows from before
-- take their last change as the best known time.
ALTER TABLE notification_devices ADD COLUMN registered_at timestamptz;
UPDATE notification_devices SET registered_at = updated_at;
ALTER TABLE notification_devices ALTER COLUMN registered_at SET NOT NULL;
