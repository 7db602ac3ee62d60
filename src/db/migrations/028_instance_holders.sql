-- Per-id counters on each NFT instance, kept with token_balances in the same statement (see
-- applyTokenBalanceChanges) and taken back exactly on a reorganization: the holders of the id with a
-- balance above zero, and the units they hold between them. Blockscout's is_unique (one unit, one holder)
-- is then read from the instance's own row, which every page showing an id looks up anyway, instead of
-- probing the id's balances: on the 10 M benchmark dataset those probes were half of the transfer
-- statement of endpoint 2's largest pages (550 of them a page). Units are unbounded: a sum of uint256
-- balances can exceed 78 digits.
ALTER TABLE token_instances
  ADD COLUMN holders bigint NOT NULL DEFAULT 0,
  ADD COLUMN units numeric NOT NULL DEFAULT 0;

UPDATE token_instances i SET holders = c.holders, units = c.units
FROM (
  SELECT token_address, token_id, count(*) AS holders, sum(value) AS units
  FROM token_balances WHERE token_id >= 0 AND value > 0
  GROUP BY token_address, token_id
) c
WHERE i.token_address = c.token_address AND i.token_id = c.token_id;
