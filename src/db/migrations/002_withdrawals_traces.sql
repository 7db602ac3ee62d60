-- Withdrawals (post-Shanghai) and internal transactions from call traces.

CREATE TABLE withdrawals (
  index bigint PRIMARY KEY,
  block_number bigint NOT NULL,
  validator_index bigint NOT NULL,
  address bytea NOT NULL,
  -- in wei; the node reports gwei
  amount numeric(78,0) NOT NULL
);
CREATE INDEX withdrawals_block ON withdrawals (block_number, index);
CREATE INDEX withdrawals_address ON withdrawals (address, index);

CREATE TABLE internal_transactions (
  block_number bigint NOT NULL,
  transaction_index integer NOT NULL,
  -- depth-first position inside the transaction; 0 is the top-level frame
  index integer NOT NULL,
  -- position among all frames of the block
  block_index integer NOT NULL,
  transaction_hash bytea NOT NULL,
  type text NOT NULL,
  from_address bytea NOT NULL,
  to_address bytea,
  created_contract bytea,
  value numeric(78,0) NOT NULL,
  gas numeric(78,0),
  gas_used numeric(78,0),
  input bytea NOT NULL,
  output bytea,
  error text,
  trace_address integer[] NOT NULL,
  PRIMARY KEY (block_number, transaction_index, index)
);

-- As address_transactions, for endpoint 12: direction bits 1 from, 2 to, 4 created contract.
CREATE TABLE address_internal_transactions (
  address bytea NOT NULL,
  block_number bigint NOT NULL,
  transaction_index integer NOT NULL,
  index integer NOT NULL,
  direction smallint NOT NULL,
  PRIMARY KEY (address, block_number, transaction_index, index)
);

ALTER TABLE transactions ADD COLUMN error text;
ALTER TABLE transactions ADD COLUMN has_error_in_internal_transactions boolean;
-- false where the node offered no tracer: internal transactions of that block are unknown, not absent
ALTER TABLE blocks ADD COLUMN traced boolean NOT NULL DEFAULT false;
