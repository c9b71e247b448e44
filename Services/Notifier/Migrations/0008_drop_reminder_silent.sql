-- 0007's `reminders.silent` was never set by a projection: the dispatcher decides a wellbeing push's
-- badge-only form from the user's settings when it sends (a rebuild cannot change it that way).
ALTER TABLE reminders DROP COLUMN silent;
