-- The chat list (GET /v1/chats) orders chats by their newest activity: kept on the chat by the
-- chats projection (the newest message's seq and time, else the chat's creation).
ALTER TABLE chats ADD COLUMN last_seq bigint;
ALTER TABLE chats ADD COLUMN last_activity_at timestamptz;
UPDATE chats c SET last_seq = m.seq, last_activity_at = m.sent_at
FROM (SELECT DISTINCT ON (chat_id) chat_id, seq, sent_at FROM chat_messages ORDER BY chat_id, seq DESC) m
WHERE m.chat_id = c.chat_id;
UPDATE chats SET last_activity_at = created_at WHERE last_activity_at IS NULL;
ALTER TABLE chats ALTER COLUMN last_activity_at SET NOT NULL;
CREATE INDEX chats_last_activity_idx ON chats (last_activity_at DESC, chat_id DESC);
