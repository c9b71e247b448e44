-- Read model of profile.fact_extracted / fact_confirmed / fact_rejected: the household profile.
-- status: proposed (not yet decided), confirmed, rejected.
CREATE TABLE profile_facts (
    fact_id uuid PRIMARY KEY,
    household_id uuid NOT NULL,
    member_id uuid,
    subject text NOT NULL,
    kind text NOT NULL,
    value text NOT NULL,
    polarity text NOT NULL,
    confidence double precision NOT NULL,
    message_id uuid NOT NULL,
    chat_id uuid NOT NULL,
    quoted_span text NOT NULL,
    extractor text NOT NULL,
    status text NOT NULL,
    extracted_at timestamptz NOT NULL,
    decided_by uuid,
    decided_at timestamptz
);
CREATE INDEX profile_facts_household_idx ON profile_facts (household_id, extracted_at, fact_id);

-- The allergies and intolerances meal planning must respect, derived from facts by the safety
-- rule: an added constraint holds at once (until its fact is rejected); a removal deletes it only
-- once confirmed. One row per (household, subject, kind, value).
CREATE TABLE profile_constraints (
    household_id uuid NOT NULL,
    subject text NOT NULL,
    kind text NOT NULL,
    value text NOT NULL,
    source_fact_id uuid NOT NULL,
    PRIMARY KEY (household_id, subject, kind, value)
);
