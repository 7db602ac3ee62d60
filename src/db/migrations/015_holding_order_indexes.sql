-- A holding's NFT ids and a token's ids in value order, so that a page of endpoint 1 (an address's ERC-1155
-- and ERC-404 ids) and of endpoint 6 for an ERC-1155 (every id's holders) is read from an index in page
-- order instead of sorting every id held or every balance of the token.
CREATE INDEX token_balances_held_ids ON token_balances (holder, value DESC, token_address DESC, token_id DESC)
  WHERE value > 0 AND token_id >= 0;
CREATE INDEX token_balances_id_holders ON token_balances (token_address, value DESC, holder DESC, token_id DESC)
  WHERE value > 0 AND token_id >= 0;
