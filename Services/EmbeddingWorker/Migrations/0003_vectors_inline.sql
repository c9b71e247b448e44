-- Keep each vector in its row. With the default EXTERNAL storage a chunk's row (text,
-- tsvector and a 1.5 KB vector) passes the 2 KB toast threshold and the vector is the column moved
-- out of line, so every distance a search computes first fetched the vector from the toast table
-- (~3/4 of a recipe search's time in Postgres). PLAIN keeps it inline. The tsvector, which every
-- text search reads for each matching chunk, goes MAIN: compressed if need be, kept in the row. The
-- chunk's text is what moves out instead: a search reads it only for the few chunks it returns.
ALTER TABLE document_chunks ALTER COLUMN embedding SET STORAGE PLAIN;
ALTER TABLE document_chunks ALTER COLUMN search_text SET STORAGE MAIN;
-- Existing rows keep their toasted values until rewritten: a new value (not the stored pointer) is
-- stored by the new rule, and the UPDATE computes the generated tsvector anew.
UPDATE document_chunks SET embedding = (embedding::real[])::vector;

-- The same for chat messages: a long message would otherwise push its vector out of line.
ALTER TABLE chat_message_embeddings ALTER COLUMN embedding SET STORAGE PLAIN;
UPDATE chat_message_embeddings SET embedding = (embedding::real[])::vector;
