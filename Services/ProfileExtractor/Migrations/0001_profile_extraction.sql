-- The profile-extractor's own read models: the people each household plans for (from
-- household.member_added), whose names are the subjects extraction may use, and which messages
-- were read with how many facts (from chat.message_sent).
CREATE TABLE profile_subjects (
    member_id uuid PRIMARY KEY,
    household_id uuid NOT NULL,
    name text NOT NULL,
    role text NOT NULL
);
CREATE INDEX profile_subjects_household_idx ON profile_subjects (household_id);

CREATE TABLE profile_extracted_messages (
    message_id uuid PRIMARY KEY,
    household_id uuid NOT NULL,
    chat_id uuid NOT NULL,
    fact_ids uuid[] NOT NULL,
    extracted_at timestamptz NOT NULL
);
