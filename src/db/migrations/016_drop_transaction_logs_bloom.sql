-- A receipt's logs bloom (256 bytes per transaction) is served by no endpoint; the block's is kept.
ALTER TABLE transactions DROP COLUMN logs_bloom;
