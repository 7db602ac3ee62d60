-- The token's type (tokens.type) on each transfer and per-address transfer row, so that endpoints 8 and 13
-- filter by type with an index range scan whatever the matches' age (see storeTokensAndTypes).
ALTER TABLE token_transfers ADD COLUMN token_contract_type text;
UPDATE token_transfers t
SET token_contract_type = COALESCE((SELECT k.type FROM tokens k WHERE k.address = t.token_address), t.token_type);
ALTER TABLE token_transfers ALTER COLUMN token_contract_type SET NOT NULL;

ALTER TABLE address_token_transfers ADD COLUMN token_contract_type text;
UPDATE address_token_transfers a SET token_contract_type = t.token_contract_type
FROM token_transfers t WHERE t.block_number = a.block_number AND t.log_index = a.log_index;
ALTER TABLE address_token_transfers ALTER COLUMN token_contract_type SET NOT NULL;

CREATE INDEX token_transfers_type ON token_transfers (token_contract_type, block_number, log_index);
CREATE INDEX address_token_transfers_type ON address_token_transfers (address, token_contract_type, block_number, log_index);
