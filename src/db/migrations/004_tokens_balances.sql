-- Tokens, current balances and NFT instances.

CREATE TABLE tokens (
  address bytea PRIMARY KEY,
  -- ERC-20 | ERC-721 | ERC-1155 | ERC-404 (a contract emitting both the ERC-20 and the ERC-721 Transfer)
  type text NOT NULL,
  -- read with eth_call; null where the contract reverts or answers something unreadable
  name text,
  symbol text,
  decimals smallint,
  total_supply numeric(78,0),
  first_seen_block bigint NOT NULL,
  -- the block whose state name, symbol, decimals and total supply were read at
  read_at_block bigint NOT NULL
);

-- Current balance of each holder per token and id. token_id -1 is the fungible balance (ERC-20, and
-- the ERC-20 side of ERC-404). Maintained from transfers: a range adds its deltas, a reorganization
-- subtracts the orphaned ones. A balance back at zero is deleted; the zero address is never a holder.
CREATE TABLE token_balances (
  token_address bytea NOT NULL,
  token_id numeric(78,0) NOT NULL,
  holder bytea NOT NULL,
  value numeric(78,0) NOT NULL,
  PRIMARY KEY (token_address, token_id, holder)
);
CREATE INDEX token_balances_holder ON token_balances (holder, token_address, token_id) WHERE value > 0;
CREATE INDEX token_balances_ranked ON token_balances (token_address, token_id, value DESC, holder DESC) WHERE value > 0;

-- Every NFT id seen in a transfer, with its metadata once fetched.
CREATE TABLE token_instances (
  token_address bytea NOT NULL,
  token_id numeric(78,0) NOT NULL,
  first_seen_block bigint NOT NULL,
  token_uri text,
  -- the decoded JSON metadata, or the reason it could not be had (exactly one of them once fetched)
  metadata jsonb,
  metadata_error text,
  metadata_fetched_at timestamptz,
  PRIMARY KEY (token_address, token_id)
);
CREATE INDEX token_instances_unfetched ON token_instances (first_seen_block) WHERE metadata_fetched_at IS NULL;
