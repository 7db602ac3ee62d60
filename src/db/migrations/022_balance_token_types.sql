-- The token's type (tokens.type) on each balance, as migration 011 put it on transfers, and first in the
-- keys of a holder's balances after the holder: endpoint 1 with `type=` reads one index range per type
-- in page order instead of walking the holder's balances of every other type (the hot address of the
-- benchmark dataset holds 20,002 ERC-1155 ids: `type=ERC-404` walked them all to find none, 16.8 ms).
ALTER TABLE token_balances ADD COLUMN token_contract_type text;
UPDATE token_balances b
SET token_contract_type = COALESCE((SELECT k.type FROM tokens k WHERE k.address = b.token_address), 'ERC-20');
ALTER TABLE token_balances ALTER COLUMN token_contract_type SET NOT NULL;

DROP INDEX token_balances_held_ids;
DROP INDEX token_balances_fungible;
CREATE INDEX token_balances_held_ids ON token_balances
  (holder, token_contract_type, value DESC, token_address DESC, token_id DESC) WHERE value > 0 AND token_id >= 0;
CREATE INDEX token_balances_fungible ON token_balances
  (holder, token_contract_type, value DESC, token_address DESC) WHERE value > 0 AND token_id < 0;
