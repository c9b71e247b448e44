-- household_chat_access as a function rather than a view: a view is bound to the tables it was
-- made on, and a replay swaps a projection's tables (builds them anew, drops the old), which a
-- dependent view forbids. A SQL function names its tables when a query runs, so it reads
-- whichever are live; as one SELECT in LANGUAGE sql and STABLE, Postgres inlines it into the
-- calling query, whose plan still sees the tables and their indexes.
DROP VIEW household_chat_access;
CREATE FUNCTION household_chat_access() RETURNS TABLE (user_id uuid, household_id uuid)
LANGUAGE sql STABLE AS $$
    SELECT user_id, household_id FROM user_households
    UNION
    SELECT coach_id, household_id FROM coach_clients WHERE ended_at IS NULL
$$;
