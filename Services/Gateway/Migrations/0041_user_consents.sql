-- What a user agreed to (`user.consents_updated`): `cloud_ai`, their words may go to a cloud model
-- provider (activity ideas). Off until they say yes; erasure turns it off.
ALTER TABLE users ADD COLUMN cloud_ai_consent boolean NOT NULL DEFAULT false;
ALTER TABLE users ADD COLUMN consents_updated_at timestamptz;
