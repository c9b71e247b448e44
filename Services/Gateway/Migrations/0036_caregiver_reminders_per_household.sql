-- A caregiver's tracking reminders are per household: a nanny of two families sets each one's.
ALTER TABLE caregiver_reminders DROP CONSTRAINT caregiver_reminders_pkey;
ALTER TABLE caregiver_reminders ADD PRIMARY KEY (user_id, household_id);
