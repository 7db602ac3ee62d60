-- Exact holder counts and per-holder NFT holdings, kept with token_balances in the same transaction (see
-- applyTokenBalanceChanges) so that no page aggregates a token's holders or a holder's ids.

-- Distinct holders with a balance above zero, any id.
ALTER TABLE tokens ADD COLUMN holders_count bigint NOT NULL DEFAULT 0;

-- One row per holder of ids (>= 0) of an NFT token: how many ids it holds with a balance above zero and
-- the sum of those balances (an ERC-721 holding's value). No row when it holds none.
CREATE TABLE token_holders (
  token_address bytea NOT NULL,
  holder bytea NOT NULL,
  ids bigint NOT NULL,
  ids_value numeric(78,0) NOT NULL,
  PRIMARY KEY (token_address, holder)
);
-- Endpoint 6 for ERC-721 (value desc, holder desc) and the holder's collections (endpoints 1 and 11).
CREATE INDEX token_holders_ranked ON token_holders (token_address, ids_value DESC, holder DESC);
CREATE INDEX token_holders_holder ON token_holders (holder, token_address);

INSERT INTO token_holders (token_address, holder, ids, ids_value)
SELECT token_address, holder, count(*), sum(value)
FROM token_balances
WHERE token_id >= 0 AND value > 0
GROUP BY token_address, holder;

UPDATE tokens t SET holders_count = c.holders
FROM (
  SELECT token_address, count(DISTINCT holder) AS holders
  FROM token_balances WHERE value > 0 GROUP BY token_address
) c
WHERE c.token_address = t.address;
