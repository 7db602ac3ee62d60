-- A balance is the sum of its token's transfers, and any contract can emit transfer events of any amount:
-- ten transfers of 2^256 - 1 to one holder pass the 78 digits of numeric(78,0), and the range holding
-- them could never be written (the indexer stopped there). Balances and their sums are unbounded
-- numerics; a single transfer's amount stays a uint256. Dropping a numeric's precision rewrites no
-- table; PostgreSQL rebuilds the partial indexes on the column.
ALTER TABLE token_balances ALTER COLUMN value TYPE numeric;
ALTER TABLE token_holders ALTER COLUMN ids_value TYPE numeric;
