-- 038 gave item_count a default so that stored rows could be counted in place. A default lets a writer that
-- leaves the column out (an indexer older than 038 during an upgrade, hand-written SQL) store a batch that
-- every list shows as its first id alone: without it, such a row is refused.
ALTER TABLE token_transfers ALTER COLUMN item_count DROP DEFAULT;
