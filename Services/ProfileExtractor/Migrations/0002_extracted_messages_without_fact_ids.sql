-- Which facts a message gave is the extractor's answer, and with a model behind it that answer
-- cannot be had again from the events: a replay would record other ids than the live run did.
-- The facts live in the profile.fact_extracted events the extractor published (and in the
-- gateway's profile_facts); this table keeps only which messages were read, a pure function of
-- the events.
ALTER TABLE profile_extracted_messages DROP COLUMN fact_ids;
