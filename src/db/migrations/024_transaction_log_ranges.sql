-- Each transaction's logs as a range of its block's log indexes (the receipts number a block's logs in
-- transaction order): [first_log_index, first_log_index + log_count), first_log_index null without logs.
-- A page's logs and token transfers (keyed by block number and log index) are then read one range per
-- transaction that has any. Matched by block, a page read every log and transfer of its transactions'
-- blocks, a cost that grows with the size of the blocks (hundreds of logs a block on mainnet), not the page.
ALTER TABLE transactions ADD COLUMN first_log_index integer, ADD COLUMN log_count integer NOT NULL DEFAULT 0;
UPDATE transactions t SET first_log_index = l.first_log_index, log_count = l.log_count
FROM (SELECT block_number, transaction_index, min(log_index) AS first_log_index, count(*)::integer AS log_count
      FROM logs GROUP BY block_number, transaction_index) l
WHERE t.block_number = l.block_number AND t.index = l.transaction_index;
ALTER TABLE transactions ALTER COLUMN log_count DROP DEFAULT;
