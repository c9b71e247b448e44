-- Cheaper writes on the two tables every household.upserted touches.
-- event_log: nothing reads the archive by type or by time alone (trace goes by correlation id,
-- key or event id; replay by topic, partition and offset), and each of these indexes cost a WAL
-- record per archived event. The envelope is kept as the exact text that was on the topic: `json`
-- is checked on the way in like `jsonb`, but not taken apart and rebuilt.
DROP INDEX event_log_type_idx;
DROP INDEX event_log_occurred_at_idx;
ALTER TABLE event_log ALTER COLUMN envelope TYPE json USING envelope::json;
-- households: every upsert rewrites its row; free room on each page lets the new version stay on
-- the page (a HOT update) with no new index entries.
ALTER TABLE households SET (fillfactor = 70);
