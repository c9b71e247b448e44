-- Who is watching which chat on an open stream: a row per open `GET /v1/chats/{id}/stream`,
-- written by the gateway holding it, refreshed at every heartbeat and removed when it closes. A
-- gateway that dies leaves rows that lapse at `expires_at`. Runtime state, not a read model:
-- nothing replays into it, so UNLOGGED (a crash of Postgres empties it, which is the truth: the
-- streams are gone too). The notifier reads it before a new-message push.
CREATE UNLOGGED TABLE chat_stream_presence (
    connection_id uuid PRIMARY KEY,
    chat_id uuid NOT NULL,
    user_id uuid NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE INDEX chat_stream_presence_chat_idx ON chat_stream_presence (chat_id, user_id);
