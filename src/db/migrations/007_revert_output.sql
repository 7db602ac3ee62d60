-- What the top-level call of a reverted transaction returned (an Error(string), Panic(uint256) or custom
-- error), to decode its revert reason; null for successful transactions, other failures and untraced blocks.

ALTER TABLE transactions ADD COLUMN revert_output bytea;
