-- `filter=from|to` of endpoints 12 and 13 as index range scans: filtered after the address's index, a page
-- of the direction an address rarely takes walked its whole history (an address that never receives an
-- internal call scanned all of its rows to answer an empty page). The predicates are the queries' own
-- conditions (src/db/direction.ts), which is how the planner matches them.
CREATE INDEX address_internal_transactions_sent ON address_internal_transactions
  (address, block_number, transaction_index, index) WHERE direction & 1 <> 0;
CREATE INDEX address_internal_transactions_received ON address_internal_transactions
  (address, block_number, transaction_index, index) WHERE direction & 6 <> 0;
CREATE INDEX address_token_transfers_sent ON address_token_transfers
  (address, block_number, log_index) WHERE direction & 1 <> 0;
CREATE INDEX address_token_transfers_received ON address_token_transfers
  (address, block_number, log_index) WHERE direction & 2 <> 0;
