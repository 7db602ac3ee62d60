-- A number that changes whenever data the API shows changes: the API serves a computed page again only
-- while it reads the same number (src/api/page-cache.ts). A trigger on every table moves it once per
-- writing transaction, before the transaction's first row, so every writer takes this row's lock first
-- (no lock-order cycle through it) and a reader sees the new number exactly when it sees the new rows.
CREATE TABLE data_version (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  version bigint NOT NULL,
  -- The transaction that moved it last, so that its later statements leave it alone.
  transaction_id xid8
);
INSERT INTO data_version (version) VALUES (0);

CREATE FUNCTION bump_data_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE data_version SET version = version + 1, transaction_id = pg_current_xact_id()
  WHERE transaction_id IS DISTINCT FROM pg_current_xact_id();
  RETURN NULL;
END
$$;

-- Every table but this one and the migrations' own; a later migration that creates a table adds it too
-- (test/tables.test.ts checks).
DO $$
DECLARE
  name text;
BEGIN
  FOR name IN
    SELECT tablename FROM pg_tables
    WHERE schemaname = current_schema() AND tablename NOT IN ('data_version', 'schema_migrations')
  LOOP
    EXECUTE format(
      'CREATE TRIGGER bump_data_version BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I
       FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version()',
      name
    );
  END LOOP;
END
$$;
