-- Contracts the operator imported ABIs for, and proxies detected from code and storage.

-- One imported ABI per address (`sextant abi import`, the watched ABI folder); importing again replaces it.
-- Not derived from blocks: a reorganization keeps it.
CREATE TABLE contract_abis (
  address bytea PRIMARY KEY,
  -- the contract name (Sourcify's compilation target, or the name given with a plain ABI); null if unnamed
  name text,
  abi jsonb NOT NULL,
  -- abi (plain ABI JSON) | metadata (Sourcify-style metadata.json)
  source text NOT NULL,
  -- the file it was imported from
  file text NOT NULL,
  imported_at timestamptz NOT NULL DEFAULT now()
);

-- What a proxy delegates to, read at the block of each event that may change it: the contract's creation,
-- an Upgraded or BeaconUpgraded log, an EIP-7702 authorization. The current state of an address is its
-- row with the highest block_number; a reorganization deletes the rows above its common ancestor.
-- proxy_type null: not (or no longer) a proxy. A beacon's own row has a null proxy_type and its
-- implementation, so that the proxies behind it follow its upgrades (see currentProxySql).
CREATE TABLE proxies (
  address bytea NOT NULL,
  block_number bigint NOT NULL,
  -- Blockscout's proxy_type: eip1967 | eip1967_beacon | eip1822 | eip1167 | eip7702
  proxy_type text,
  -- every kind detected delegates to one implementation (null: none readable, e.g. a beacon that reverts)
  implementation bytea,
  -- the beacon of an eip1967_beacon proxy
  beacon bytea,
  PRIMARY KEY (address, block_number)
);
CREATE INDEX proxies_block_number ON proxies (block_number);
