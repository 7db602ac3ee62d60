-- A transaction list previews the first ids of each transfer, and a page of transfers starts at a batch's
-- first ids; both read them by slicing the batch's arrays, which PostgreSQL keeps compressed out of line
-- once a batch holds a few hundred ids and reads whole for any slice: 50 previews of batches of 20,000 ids
-- took 11-16 ms more than of 20. A batch of more than 64 ids (batchHeadItems in src/db/tables.ts) keeps its
-- first 64 here too, in line. A table of its own: as nullable columns of token_transfers, every transfer's
-- row would carry a null bitmap.
CREATE TABLE token_transfer_heads (
  block_number bigint NOT NULL,
  log_index integer NOT NULL,
  token_ids numeric(78,0)[] NOT NULL,
  amounts numeric(78,0)[] NOT NULL,
  PRIMARY KEY (block_number, log_index)
);
-- A page that shows a head is cached until the data changes (013).
CREATE TRIGGER bump_data_version BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON token_transfer_heads
  FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version();

INSERT INTO token_transfer_heads (block_number, log_index, token_ids, amounts)
SELECT block_number, log_index, token_ids[1:64], amounts[1:64] FROM token_transfers WHERE item_count > 64;
