-- Which event made each edited or deleted version of a tracking log (projection `tracking_logs`):
-- a writer whose edit was applied learns so even when another edit has landed on top of it
-- before it reads the log back.
CREATE TABLE tracking_log_versions (
    log_id uuid NOT NULL,
    version integer NOT NULL,
    event_id uuid NOT NULL,
    household_id uuid NOT NULL,
    PRIMARY KEY (log_id, version)
);
CREATE INDEX tracking_log_versions_household_idx ON tracking_log_versions (household_id);
