-- Editing a proposed action before deciding on it (assistant.action_edited), and proposals that
-- wait for a choice between people of one name (assistant.action_proposed v2 `choice`). The
-- proposal as first made is kept beside what is confirmed, in the actions and in the audit log.
ALTER TABLE assistant_actions ADD COLUMN choice jsonb;
ALTER TABLE assistant_actions ADD COLUMN proposed_arguments jsonb;
ALTER TABLE assistant_actions ADD COLUMN proposed_summary text;
ALTER TABLE assistant_actions ADD COLUMN edited_by uuid;
ALTER TABLE assistant_actions ADD COLUMN edited_at timestamptz;
UPDATE assistant_actions SET proposed_arguments = arguments, proposed_summary = summary;
ALTER TABLE assistant_actions ALTER COLUMN proposed_arguments SET NOT NULL;
ALTER TABLE assistant_actions ALTER COLUMN proposed_summary SET NOT NULL;

ALTER TABLE assistant_audit_log ADD COLUMN proposed_arguments jsonb;
ALTER TABLE assistant_audit_log ADD COLUMN proposed_summary text;
ALTER TABLE assistant_audit_log ADD COLUMN edited_by uuid;
