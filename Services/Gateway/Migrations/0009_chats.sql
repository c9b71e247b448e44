-- Read models of chat.created / chat.message_sent / chat.read.
CREATE TABLE chats (
    chat_id uuid PRIMARY KEY,
    household_id uuid NOT NULL,
    title text,
    created_by uuid NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX chats_household_id_idx ON chats (household_id);

-- Who may read and write a chat, and how far each has read.
CREATE TABLE chat_members (
    chat_id uuid NOT NULL,
    user_id uuid NOT NULL,
    read_up_to uuid,
    read_up_to_seq bigint,
    read_at timestamptz,
    PRIMARY KEY (chat_id, user_id)
);
CREATE INDEX chat_members_user_id_idx ON chat_members (user_id);

-- seq is the event's Kafka offset: every event of a chat is on one partition (keyed by chat), so
-- it orders a chat's messages exactly as they were appended, on every replay.
CREATE TABLE chat_messages (
    message_id uuid PRIMARY KEY,
    chat_id uuid NOT NULL,
    household_id uuid NOT NULL,
    author_id uuid NOT NULL,
    author_name text NOT NULL,
    body text NOT NULL,
    client_id text NOT NULL,
    seq bigint NOT NULL,
    sent_at timestamptz NOT NULL
);
CREATE INDEX chat_messages_chat_seq_idx ON chat_messages (chat_id, seq DESC);
