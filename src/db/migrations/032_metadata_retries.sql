-- A metadata fetch that failed in a way that can pass (the node gave up on the `tokenURI` call, the client
-- stopped waiting for it) is not recorded: the instance stays unfetched and is asked again once
-- `metadata_retry_at` has passed, each time later, after `metadata_attempts` such failures.
ALTER TABLE token_instances ADD COLUMN metadata_attempts integer NOT NULL DEFAULT 0;
ALTER TABLE token_instances ADD COLUMN metadata_retry_at timestamptz;
