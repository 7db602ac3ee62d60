-- A page of token transfers spreads each ERC-1155 batch into one item per id. It counted a transfer's
-- items from its arrays, which PostgreSQL keeps compressed out of line once a batch holds a few hundred
-- ids: a page read the arrays of every transfer it read, once for each id it spread (335–358 ms for a page
-- over batches of 20,000 ids). Counted here, only the batches a page shows are read.
ALTER TABLE token_transfers ADD COLUMN item_count integer NOT NULL DEFAULT 1;

UPDATE token_transfers SET item_count = greatest(cardinality(token_ids), cardinality(amounts))
WHERE greatest(cardinality(token_ids), cardinality(amounts)) > 1;
