// Store-wide settings (embedder name and dimension) live on :CogmemMeta nodes.
CREATE CONSTRAINT cogmem_meta_key IF NOT EXISTS FOR (n:CogmemMeta) REQUIRE n.key IS UNIQUE
