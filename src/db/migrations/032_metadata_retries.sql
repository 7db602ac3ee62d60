-- A metadata fetch that failed in a way that can pass (the node gave up on the `tokenURI` call, the client
-- stopped waiting for it) is not recorded: the instance stays unfetched and is asked again once
-- `metadata_retry_at` has passed, each time later, after `metadata_attempts` such failures.
ALTER TABLE token_instances ADD COLUMN metadata_attempts integer NOT NULL DEFAULT 0;
ALTER TABLE token_instances ADD COLUMN metadata_retry_at timestamptz;
-- Instances never tried come first, then deferred ones by the time they are due: a round's scan stops at the
-- first instance not due yet, however many wait behind it (a gateway down for a whole collection).
DROP INDEX token_instances_unfetched;
CREATE INDEX token_instances_unfetched
  ON token_instances ((coalesce(metadata_retry_at, '-infinity')), first_seen_block)
  WHERE metadata_fetched_at IS NULL;
