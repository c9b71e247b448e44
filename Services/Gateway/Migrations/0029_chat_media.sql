-- Images in chats (chat.media_shared). The bytes and the 200×200 thumbnail are kept in
-- `chat_media` (not a read model: the gateway writes them before the event names them by id and
-- hash; a replay leaves them, the erasure of their author or household removes them). The
-- message row says what it carries.
CREATE TABLE chat_media (
    media_id uuid PRIMARY KEY,
    chat_id uuid NOT NULL,
    household_id uuid NOT NULL,
    content_type text NOT NULL,
    sha256 text NOT NULL,
    image bytea NOT NULL,
    thumbnail bytea NOT NULL,
    uploaded_by uuid NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX chat_media_chat_idx ON chat_media (chat_id);
CREATE INDEX chat_media_household_idx ON chat_media (household_id);
CREATE INDEX chat_media_uploaded_by_idx ON chat_media (uploaded_by);

ALTER TABLE chat_messages ADD COLUMN media_id uuid;
ALTER TABLE chat_messages ADD COLUMN media_type text;
ALTER TABLE chat_messages ADD COLUMN media_size integer;
ALTER TABLE chat_messages ADD COLUMN media_width integer;
ALTER TABLE chat_messages ADD COLUMN media_height integer;
