-- A fact about someone named who is nobody in the household yet (profile.fact_extracted v2
-- `unknown_subject`): kept under the name as written, constraining nothing until a member links
-- it (profile.fact_linked), which sets member_id and subject and clears the flag.
ALTER TABLE profile_facts ADD COLUMN unknown_subject boolean NOT NULL DEFAULT false;
