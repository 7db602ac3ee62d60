-- A transaction's summary (endpoint 7) tells the payments its inner calls sent back to its sender. Read
-- through the sender's calls in the transaction and filtered on value, a transaction that called its sender
-- 100,000 times without value read every one of them (127 ms) to tell none. Here only the calls a summary
-- can tell are kept, by recipient: those that moved value (at least 9,000 gas each) and the creations
-- (32,000; their recipient is null), so a transaction's payments to one address and its creations are
-- each one range. This index replaces 037's, which held the creations alone.
DROP INDEX internal_transactions_creations;
CREATE INDEX internal_transactions_effects ON internal_transactions (block_number, transaction_index, to_address, index)
  WHERE error IS NULL AND (created_contract IS NOT NULL OR value > 0);
