-- Every sort of endpoint 2 under `filter=from|to` as index range scans: with the direction checked after
-- the address's index, a page of the direction an address rarely takes in the requested order walked its
-- history (the hot address's received transactions by fee, descending: 975,000 rows for 50). The
-- direction now follows the address in each key, and a page merges one range per direction the filter
-- keeps (src/db/direction.ts). The key grows by two bytes, mostly taken from the alignment padding after
-- the 21-byte address: 10 bytes per transaction more on the 200 k benchmark dataset built afresh (the
-- value index 5 %), where a copy of the value and fee indexes per direction would add about 270.
ALTER TABLE address_transactions DROP CONSTRAINT address_transactions_pkey;
DROP INDEX address_transactions_value;
DROP INDEX address_transactions_fee;
ALTER TABLE address_transactions ADD PRIMARY KEY (address, direction, block_number, transaction_index);
CREATE INDEX address_transactions_value ON address_transactions (address, direction, value, block_number, transaction_index);
CREATE INDEX address_transactions_fee ON address_transactions (address, direction, fee, block_number, transaction_index);
