-- Indexes for the gateway projections' handling of user.deletion_requested and user.erased: each
-- erasure finds the user's rows (and those of the households erased with them) by columns no
-- index covered, and would otherwise scan the whole table inside the projection's transaction.

-- ChatsProjection anonymises the messages the user sent, ProfileFactsProjection finds the facts
-- quoted from them. One entry per message: the price of not scanning every message per erasure.
CREATE INDEX chat_messages_author_id_idx ON chat_messages (author_id);

-- ProfileFactsProjection: the facts quoting a given message.
CREATE INDEX profile_facts_message_id_idx ON profile_facts (message_id);

-- FeedbackProjection: the feedback of erased households (by user it is feedback_user_id_idx).
CREATE INDEX feedback_household_id_idx ON feedback (household_id) WHERE household_id IS NOT NULL;

-- CalendarEntriesProjection: an erased household's entries, tombstones included (the existing
-- indexes on household and owner cover live entries only), and the user's entries that belong to
-- no household.
CREATE INDEX calendar_entries_household_all_idx ON calendar_entries (household_id) WHERE household_id IS NOT NULL;
CREATE INDEX calendar_entries_personal_owner_idx ON calendar_entries (owner_user_id) WHERE household_id IS NULL;

-- CalendarFeedsProjection: a user's feeds (revoked at the deletion request) and a household's.
CREATE INDEX calendar_feeds_user_id_idx ON calendar_feeds (user_id);
CREATE INDEX calendar_feeds_household_id_idx ON calendar_feeds (household_id) WHERE household_id IS NOT NULL;

-- AssistantActionsProjection: the actions proposed for (asked by) the user.
CREATE INDEX assistant_actions_proposed_for_idx ON assistant_actions (proposed_for);
