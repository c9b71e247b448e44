-- A user may belong to several households (user.household_joined v2): one row per membership,
-- with the role held in it. Invites say the role the invitee joins in (household.invite_created v2).
ALTER TABLE user_households DROP CONSTRAINT user_households_pkey;
ALTER TABLE user_households ADD PRIMARY KEY (user_id, household_id);
ALTER TABLE user_households ADD COLUMN role text NOT NULL DEFAULT 'adult';
UPDATE user_households SET role = 'owner' WHERE via = 'created';
ALTER TABLE user_households ALTER COLUMN role DROP DEFAULT;

ALTER TABLE household_invites ADD COLUMN role text NOT NULL DEFAULT 'adult';
ALTER TABLE household_invites ALTER COLUMN role DROP DEFAULT;
