-- Who uses each household (from user.household_joined and user.household_left; coaches are
-- never here): the people asked to link a fact about someone the household does not know yet.
CREATE TABLE profile_household_users (
    household_id uuid NOT NULL,
    user_id uuid NOT NULL,
    PRIMARY KEY (household_id, user_id)
);
CREATE INDEX profile_household_users_user_idx ON profile_household_users (user_id);
