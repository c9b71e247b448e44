-- Who wrote each embedded message, so that `user.erased` can remove the messages of the erased
-- user from households that outlive them (their text is theirs; the table holds it verbatim).
-- Null on rows embedded before this migration: a replay of chat_message_embeddings fills it.
ALTER TABLE chat_message_embeddings ADD COLUMN author_id uuid;
CREATE INDEX chat_message_embeddings_author_idx ON chat_message_embeddings (author_id);
