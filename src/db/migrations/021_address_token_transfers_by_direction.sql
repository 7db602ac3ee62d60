-- Endpoint 13's `filter=from|to` as index range scans without an index per direction: as for
-- address_transactions (020), the direction follows the address in each key and a page merges one range
-- per direction the filter keeps (and type, with `type=`). The two partial indexes of migration 014 go:
-- about 60 bytes per transaction on the 200 k benchmark dataset; the keys that gain the direction keep
-- their size (it fits in the alignment padding after the 21-byte address).
ALTER TABLE address_token_transfers DROP CONSTRAINT address_token_transfers_pkey;
DROP INDEX address_token_transfers_type;
DROP INDEX address_token_transfers_sent;
DROP INDEX address_token_transfers_received;
ALTER TABLE address_token_transfers ADD PRIMARY KEY (address, direction, block_number, log_index);
CREATE INDEX address_token_transfers_type ON address_token_transfers
  (address, token_contract_type, direction, block_number, log_index);
