-- What read each daycare import (projection `tracking_logs`): `rules`, or the model as
-- `provider:model` (tracking.import_received v2).
ALTER TABLE daycare_imports ADD COLUMN parser text NOT NULL DEFAULT 'rules';
