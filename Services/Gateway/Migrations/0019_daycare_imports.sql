-- Daycare report imports (projection `tracking_logs`): the suggested logs read from a report,
-- what the caregiver kept, dropped or edited, and which logs the commit wrote.
CREATE TABLE daycare_imports (
    import_id uuid PRIMARY KEY,
    child_id uuid NOT NULL,
    household_id uuid NOT NULL,
    uploaded_by uuid NOT NULL,
    filename text,
    -- text, csv, json, pdf or image
    format text NOT NULL,
    report_day date NOT NULL,
    time_zone text NOT NULL,
    unread_lines integer[] NOT NULL,
    received_at timestamptz NOT NULL,
    committed_at timestamptz,
    committed_by uuid
);
CREATE INDEX daycare_imports_child_idx ON daycare_imports (child_id);
CREATE INDEX daycare_imports_household_idx ON daycare_imports (household_id);

CREATE TABLE daycare_import_suggestions (
    import_id uuid NOT NULL,
    household_id uuid NOT NULL,
    index integer NOT NULL,
    -- nap, feed, diaper, solids, medication or note
    kind text NOT NULL,
    start_minute integer NOT NULL,
    end_minute integer,
    amount_ml double precision,
    details text NOT NULL,
    line integer NOT NULL,
    keep boolean NOT NULL DEFAULT true,
    edited boolean NOT NULL DEFAULT false,
    -- the log the commit wrote from it
    log_id uuid,
    PRIMARY KEY (import_id, index)
);
CREATE INDEX daycare_import_suggestions_household_idx ON daycare_import_suggestions (household_id);

-- Where a log came from: null for one logged in the app, daycare_import (with the import) for one
-- a committed import wrote.
ALTER TABLE tracking_logs ADD COLUMN source text;
ALTER TABLE tracking_logs ADD COLUMN import_id uuid;
