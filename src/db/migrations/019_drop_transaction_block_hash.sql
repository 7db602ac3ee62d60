-- A transaction's block hash is its block's (the indexer checks that the node says so): the API reads it
-- from the block it already joins by number.
ALTER TABLE transactions DROP COLUMN block_hash;
