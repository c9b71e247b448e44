-- Who wrote the message a chat push shows: their erasure removes the pushes of their words
-- planned for everyone else (the title is their name, the body their text).
ALTER TABLE reminders ADD COLUMN chat_author_id uuid;
CREATE INDEX reminders_chat_author_idx ON reminders (chat_author_id) WHERE chat_author_id IS NOT NULL;
