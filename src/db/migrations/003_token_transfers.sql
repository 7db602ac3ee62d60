-- Token transfers decoded from logs. An ERC-1155 batch stays one row: ids and amounts are parallel arrays.

CREATE TABLE token_transfers (
  block_number bigint NOT NULL,
  log_index integer NOT NULL,
  transaction_hash bytea NOT NULL,
  transaction_index integer NOT NULL,
  token_address bytea NOT NULL,
  from_address bytea NOT NULL,
  to_address bytea NOT NULL,
  token_type text NOT NULL,
  token_ids numeric(78,0)[] NOT NULL,
  amounts numeric(78,0)[] NOT NULL,
  PRIMARY KEY (block_number, log_index)
);
CREATE INDEX token_transfers_token ON token_transfers (token_address, block_number, log_index);

-- As address_transactions, for endpoint 13: direction bits 1 from, 2 to; a self-transfer is one row.
CREATE TABLE address_token_transfers (
  address bytea NOT NULL,
  block_number bigint NOT NULL,
  log_index integer NOT NULL,
  direction smallint NOT NULL,
  PRIMARY KEY (address, block_number, log_index)
);
