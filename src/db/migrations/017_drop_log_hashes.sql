-- A log's block and transaction hashes are its block's and transaction's (the indexer checks that the node
-- says so): the API reads them through the (block_number, transaction_index) join it already makes.
ALTER TABLE logs DROP COLUMN block_hash;
ALTER TABLE logs DROP COLUMN transaction_hash;
