-- Endpoint 13's `token=`: an address's transfers of one token as two index ranges, the token's transfers
-- by sender and by recipient, merged in page order. Through the address's rows, a token the address
-- rarely moves in one direction walked that direction's history (7.9 s for page 1,000 of the benchmark's
-- hot address and its ERC-20). The token's own index is a prefix of both and goes.
CREATE INDEX token_transfers_token_sender ON token_transfers (token_address, from_address, block_number, log_index);
CREATE INDEX token_transfers_token_recipient ON token_transfers (token_address, to_address, block_number, log_index);
DROP INDEX token_transfers_token;
