-- A token transfer's and an internal transaction's transaction hash are their transaction's (the indexer
-- checks that the node says so), as a log's are (017): the API reads it through the (block_number,
-- transaction_index) join it makes anyway, or from the transactions a page already holds. At 10 M
-- transactions: token_transfers about 14 bytes per transaction, internal_transactions about 5.
--
-- token_transfers is rewritten: its columns are all NOT NULL, so its rows carry no null bitmap, and a
-- dropped column would give every new row one (stored as NULL), 8 bytes after alignment.
CREATE TABLE token_transfers_without_hash (
  block_number bigint NOT NULL,
  log_index integer NOT NULL,
  transaction_index integer NOT NULL,
  token_address bytea NOT NULL,
  from_address bytea NOT NULL,
  to_address bytea NOT NULL,
  token_type text NOT NULL,
  token_ids numeric(78,0)[] NOT NULL,
  amounts numeric(78,0)[] NOT NULL,
  token_contract_type text NOT NULL
);
INSERT INTO token_transfers_without_hash
SELECT block_number, log_index, transaction_index, token_address, from_address, to_address, token_type, token_ids,
  amounts, token_contract_type
FROM token_transfers;
DROP TABLE token_transfers;
ALTER TABLE token_transfers_without_hash RENAME TO token_transfers;
ALTER TABLE token_transfers ADD CONSTRAINT token_transfers_pkey PRIMARY KEY (block_number, log_index);
CREATE INDEX token_transfers_type ON token_transfers (token_contract_type, block_number, log_index);
CREATE INDEX token_transfers_token_sender ON token_transfers (token_address, from_address, block_number, log_index);
CREATE INDEX token_transfers_token_recipient ON token_transfers (token_address, to_address, block_number, log_index);
CREATE TRIGGER bump_data_version BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON token_transfers
  FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version();

-- internal_transactions has nullable columns and a null bitmap already: the column is dropped in place, and a
-- database migrated in place shrinks once `VACUUM FULL internal_transactions` rewrites the table.
ALTER TABLE internal_transactions DROP COLUMN transaction_hash;
