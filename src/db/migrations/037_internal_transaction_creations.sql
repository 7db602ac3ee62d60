-- A transaction's summary (endpoint 7) tells the contracts its inner calls created. Read from the
-- transaction's calls and filtered, a transaction of thousands of calls (a disperse) was read whole to find
-- none; its creations are found here by the transaction instead, only they in the index.
CREATE INDEX internal_transactions_creations ON internal_transactions (block_number, transaction_index, index)
  WHERE created_contract IS NOT NULL;
