-- A transaction's top-level call repeats the transaction: endpoint 12 leaves it out (Blockscout's rule), and
-- its error and revert output are on the transaction's row. An index-0 create stays: endpoint 12 lists it.
DELETE FROM internal_transactions WHERE index = 0 AND type = 'call';
