-- Run once by the pgvector/pgvector image on a new data volume (compose.yaml), as the
-- POSTGRES_USER superuser. template1 too, so databases created later have the extension.
CREATE EXTENSION IF NOT EXISTS vector;
\connect template1
CREATE EXTENSION IF NOT EXISTS vector;
