-- A reorganization takes back the tokens and token instances first seen in the orphaned blocks, and the
-- supplies read in them, by those block numbers. Unindexed, each of its three statements read the whole
-- table, even for one orphaned block: 55–125 ms for 0.5–1.5 M instances, 14–73 ms a statement for 0.2–1 M
-- tokens, growing with every token and NFT the chain ever had. Each is a range at the top of one of these.
CREATE INDEX token_instances_first_seen_block ON token_instances (first_seen_block);
CREATE INDEX tokens_first_seen_block ON tokens (first_seen_block);
CREATE INDEX tokens_read_at_block ON tokens (read_at_block);
