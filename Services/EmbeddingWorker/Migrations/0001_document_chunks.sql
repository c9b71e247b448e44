-- The knowledge base and recipe catalogue as the embedding-worker last saw them: one row per
-- document (its content, for re-embedding when the model changes) and its chunks with vectors.
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE content_documents (
    document_id text PRIMARY KEY,
    kind text NOT NULL,
    title text NOT NULL,
    age_min integer,
    age_max integer,
    allergens text[] NOT NULL,
    body text NOT NULL,
    content_hash text NOT NULL,
    -- the model the chunks were embedded with; NULL while a re-embedding is owed
    model text,
    chunk_count integer NOT NULL,
    -- how many times this document was embedded: proves that unchanged content is not
    embed_count integer NOT NULL,
    updated_at timestamptz NOT NULL,
    last_event_id uuid NOT NULL
);

CREATE TABLE document_chunks (
    id text PRIMARY KEY,
    document_id text NOT NULL REFERENCES content_documents (document_id) ON DELETE CASCADE,
    chunk_index integer NOT NULL,
    kind text NOT NULL,
    title text NOT NULL,
    heading text,
    text text NOT NULL,
    age_min integer,
    age_max integer,
    allergens text[] NOT NULL,
    model text NOT NULL,
    dimension integer NOT NULL,
    content_hash text NOT NULL,
    embedding vector(384) NOT NULL,
    search_text tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', title), 'A')
        || setweight(to_tsvector('english', coalesce(heading, '')), 'B')
        || setweight(to_tsvector('english', text), 'C')
    ) STORED
);
CREATE INDEX document_chunks_document_idx ON document_chunks (document_id);
CREATE INDEX document_chunks_model_kind_idx ON document_chunks (model, kind);
CREATE INDEX document_chunks_embedding_idx ON document_chunks USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64);
CREATE INDEX document_chunks_search_idx ON document_chunks USING gin (search_text);
