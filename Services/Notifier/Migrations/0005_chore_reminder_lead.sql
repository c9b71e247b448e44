-- Chore reminders with a lead time (notification.settings_updated v2).
--
-- notification_settings (the `notification_targets` projection): the user's lead time in
-- minutes before a chore occurrence; 0 reminds at the occurrence.
ALTER TABLE notification_settings ADD COLUMN chore_reminder_lead_minutes integer NOT NULL DEFAULT 0;

-- reminder_dispatch (the dispatcher's own state): when the generation was due to go out, i.e. its
-- due_at less the lead time in force when it was queued. due_at stays the generation's key (the
-- occurrence time), so a later change of the lead time never sends a delivered occurrence again.
-- Null on rows queued before this migration: they went out at due_at.
ALTER TABLE reminder_dispatch ADD COLUMN remind_at timestamptz;
