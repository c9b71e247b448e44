-- A caregiver's tracking reminders are per household (caregiver.reminders_set names one): a
-- nanny of two families gets each one's as she set them.
ALTER TABLE tracking_caregivers DROP CONSTRAINT tracking_caregivers_pkey;
ALTER TABLE tracking_caregivers ADD PRIMARY KEY (user_id, household_id);
