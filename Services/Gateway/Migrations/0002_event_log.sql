-- The permanent archive of every event on every topic; Kafka may drop old data, this does not.
CREATE TABLE event_log (
    topic text NOT NULL,
    partition integer NOT NULL,
    "offset" bigint NOT NULL,
    event_id uuid NOT NULL,
    type text NOT NULL,
    version integer NOT NULL,
    key text NOT NULL,
    correlation_id text NOT NULL,
    causation_id text,
    source text NOT NULL,
    occurred_at timestamptz NOT NULL,
    envelope jsonb NOT NULL,
    PRIMARY KEY (topic, partition, "offset")
);
CREATE INDEX event_log_correlation_idx ON event_log (correlation_id);
CREATE INDEX event_log_key_idx ON event_log (key);
CREATE INDEX event_log_type_idx ON event_log (type);
CREATE INDEX event_log_occurred_at_idx ON event_log (occurred_at);
CREATE INDEX event_log_event_id_idx ON event_log (event_id);
