-- Core chain data: blocks, transactions with their receipts, logs, addresses.
-- Hashes and addresses are bytea; uint256 values are numeric(78,0); block numbers are bigint.

CREATE TABLE chain_identity (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  chain_id bigint NOT NULL,
  genesis_hash bytea NOT NULL
);

-- Progress of each indexing stream, written in the same transaction as the data it covers.
CREATE TABLE checkpoints (
  name text PRIMARY KEY,
  block_number bigint NOT NULL
);

CREATE TABLE blocks (
  number bigint PRIMARY KEY,
  hash bytea NOT NULL UNIQUE,
  parent_hash bytea NOT NULL,
  timestamp bigint NOT NULL,
  miner bytea NOT NULL,
  gas_limit numeric(78,0) NOT NULL,
  gas_used numeric(78,0) NOT NULL,
  base_fee_per_gas numeric(78,0),
  difficulty numeric(78,0),
  total_difficulty numeric(78,0),
  size bigint,
  nonce bytea,
  extra_data bytea NOT NULL,
  mix_hash bytea,
  sha3_uncles bytea NOT NULL,
  state_root bytea NOT NULL,
  transactions_root bytea NOT NULL,
  receipts_root bytea NOT NULL,
  logs_bloom bytea NOT NULL,
  blob_gas_used numeric(78,0),
  excess_blob_gas numeric(78,0),
  parent_beacon_block_root bytea,
  withdrawals_root bytea,
  transaction_count integer NOT NULL
);

CREATE TABLE transactions (
  hash bytea PRIMARY KEY,
  block_number bigint NOT NULL,
  block_hash bytea NOT NULL,
  index integer NOT NULL,
  from_address bytea NOT NULL,
  to_address bytea,
  created_contract bytea,
  value numeric(78,0) NOT NULL,
  nonce bigint NOT NULL,
  type smallint NOT NULL,
  gas_limit numeric(78,0) NOT NULL,
  gas_price numeric(78,0),
  max_fee_per_gas numeric(78,0),
  max_priority_fee_per_gas numeric(78,0),
  max_fee_per_blob_gas numeric(78,0),
  -- the 32-byte hashes one after another
  blob_versioned_hashes bytea,
  input bytea NOT NULL,
  v numeric(78,0),
  r numeric(78,0),
  s numeric(78,0),
  y_parity smallint,
  chain_id bigint,
  -- receipt
  status smallint,
  gas_used numeric(78,0) NOT NULL,
  cumulative_gas_used numeric(78,0) NOT NULL,
  effective_gas_price numeric(78,0),
  blob_gas_used numeric(78,0),
  blob_gas_price numeric(78,0),
  logs_bloom bytea NOT NULL,
  root bytea,
  UNIQUE (block_number, index)
);

-- One row per (address, transaction) the address takes part in; direction bits: 1 from, 2 to,
-- 4 created contract. Value and fee ride along so every sort of endpoint 2 is an index scan.
CREATE TABLE address_transactions (
  address bytea NOT NULL,
  block_number bigint NOT NULL,
  transaction_index integer NOT NULL,
  direction smallint NOT NULL,
  value numeric(78,0) NOT NULL,
  fee numeric(78,0) NOT NULL,
  PRIMARY KEY (address, block_number, transaction_index)
);
CREATE INDEX address_transactions_value ON address_transactions (address, value, block_number, transaction_index);
CREATE INDEX address_transactions_fee ON address_transactions (address, fee, block_number, transaction_index);

CREATE TABLE logs (
  block_number bigint NOT NULL,
  log_index integer NOT NULL,
  block_hash bytea NOT NULL,
  transaction_hash bytea NOT NULL,
  transaction_index integer NOT NULL,
  address bytea NOT NULL,
  topic0 bytea,
  topic1 bytea,
  topic2 bytea,
  topic3 bytea,
  data bytea NOT NULL,
  PRIMARY KEY (block_number, log_index)
);
CREATE INDEX logs_address ON logs (address, block_number, log_index);

-- Every address seen in a block, a transaction or a log; is_contract once code was seen there.
CREATE TABLE addresses (
  hash bytea PRIMARY KEY,
  is_contract boolean NOT NULL,
  first_seen_block bigint NOT NULL
);
