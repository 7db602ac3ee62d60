-- Endpoint 1 reads a holder's fungible balances in page order and its NFT ids per token (ERC-721 holdings
-- come whole from token_holders); endpoint 11 lists a collection's highest ids from the index alone. Two
-- partial indexes instead of one over every balance: the same entries, split by kind.
DROP INDEX token_balances_holder;
CREATE INDEX token_balances_holder ON token_balances (holder, token_address, token_id) INCLUDE (value)
  WHERE value > 0 AND token_id >= 0;
CREATE INDEX token_balances_fungible ON token_balances (holder, value DESC, token_address DESC)
  WHERE value > 0 AND token_id < 0;
