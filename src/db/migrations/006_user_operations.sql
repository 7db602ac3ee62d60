-- ERC-4337 user operations of the configured EntryPoints, and the state of their indexing (endpoint 10).

-- One row per UserOperationEvent. The operation's own fields (init_code .. signature) come from the bundle's
-- handleOps/handleAggregatedOps input and are null when the bundle reached the EntryPoint through another
-- contract. v0.7 and later pack gas limits and fees in pairs; they are stored unpacked.
CREATE TABLE user_operations (
  hash bytea PRIMARY KEY,
  transaction_hash bytea NOT NULL,
  transaction_index integer NOT NULL,
  block_number bigint NOT NULL,
  block_hash bytea NOT NULL,
  -- of the UserOperationEvent
  log_index integer NOT NULL,
  entry_point bytea NOT NULL,
  -- 0.6 | 0.7 | 0.8
  entry_point_version text NOT NULL,
  sender bytea NOT NULL,
  -- null when the account paid for itself
  paymaster bytea,
  nonce numeric(78,0) NOT NULL,
  success boolean NOT NULL,
  actual_gas_cost numeric(78,0) NOT NULL,
  actual_gas_used numeric(78,0) NOT NULL,
  -- from AccountDeployed: the operation created its account
  factory bytea,
  -- the bundle transaction's sender
  bundler bytea NOT NULL,
  -- handleAggregatedOps only
  aggregator bytea,
  -- UserOperationRevertReason: the account call's revert data
  revert_reason bytea,
  init_code bytea,
  call_data bytea,
  call_gas_limit numeric(78,0),
  verification_gas_limit numeric(78,0),
  pre_verification_gas numeric(78,0),
  max_fee_per_gas numeric(78,0),
  max_priority_fee_per_gas numeric(78,0),
  paymaster_and_data bytea,
  paymaster_verification_gas_limit numeric(78,0),
  paymaster_post_op_gas_limit numeric(78,0),
  signature bytea
);
CREATE INDEX user_operations_sender ON user_operations (sender, block_number, log_index);
CREATE INDEX user_operations_transaction ON user_operations (transaction_hash, log_index);
-- a reorganization deletes by block
CREATE INDEX user_operations_block ON user_operations (block_number);

-- One row per EntryPoint version, written by the indexer so that a separate `sextant serve` reports it.
CREATE TABLE user_operations_status (
  -- v06 | v07 | v08
  version text PRIMARY KEY,
  -- when an indexer last started and recorded its configuration; null before any did
  configured_at timestamptz,
  -- entry points of this version are configured
  enabled boolean NOT NULL DEFAULT false,
  -- the entry points whose logs already stored were scanned into user_operations
  scanned_entry_points bytea[] NOT NULL DEFAULT '{}',
  past_db_logs_indexing_finished boolean NOT NULL DEFAULT false,
  past_rpc_logs_indexing_finished boolean NOT NULL DEFAULT false,
  -- the indexer follows the head while now() is before this; each poll moves it on
  live_until timestamptz
);
INSERT INTO user_operations_status (version) VALUES ('v06'), ('v07'), ('v08');
