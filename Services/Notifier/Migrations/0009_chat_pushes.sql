-- Pushes for new chat messages (projection `reminders`, from chat.created and chat.message_sent):
-- who is in each chat, and on a reminder the chat it is about. One reminder per chat and
-- recipient, so a newer message replaces a pending push (collapsed per chat).
CREATE TABLE chat_push_members (
    chat_id uuid NOT NULL,
    user_id uuid NOT NULL,
    household_id uuid NOT NULL,
    PRIMARY KEY (chat_id, user_id)
);
CREATE INDEX chat_push_members_user_idx ON chat_push_members (user_id);
CREATE INDEX chat_push_members_household_idx ON chat_push_members (household_id);

ALTER TABLE reminders ADD COLUMN chat_id uuid;
