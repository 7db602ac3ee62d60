-- A transaction's signature (v, r, s, y_parity), its chain id and its receipt's cumulative gas are served by
-- no endpoint, nor by Blockscout's transaction object: 115 bytes per transaction on the 200 k benchmark
-- dataset, r and s alone 43 each as numeric. The node keeps them; a database migrated in place shrinks once
-- `VACUUM FULL transactions` rewrites the table.
ALTER TABLE transactions DROP COLUMN v, DROP COLUMN r, DROP COLUMN s, DROP COLUMN y_parity, DROP COLUMN chain_id,
  DROP COLUMN cumulative_gas_used;
