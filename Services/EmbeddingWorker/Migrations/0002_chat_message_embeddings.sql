-- Read model of chat.message_sent: one embedding per message, scoped by household and chat so a
-- search only ever reads the caller's chats. No dimension is fixed: it follows the configured
-- model (recorded per row), and searches compare only rows of the model they embed with.
CREATE TABLE chat_message_embeddings (
    message_id uuid PRIMARY KEY,
    chat_id uuid NOT NULL,
    household_id uuid NOT NULL,
    author_name text NOT NULL,
    body text NOT NULL,
    model text NOT NULL,
    embedding vector NOT NULL,
    sent_at timestamptz NOT NULL
);
CREATE INDEX chat_message_embeddings_household_idx ON chat_message_embeddings (household_id, chat_id);
