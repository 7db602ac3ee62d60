import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { type Database, openDatabase } from "../../src/db/client.ts";
import { migrate } from "../../src/db/migrate.ts";

export type DatabaseKind = "pglite" | "postgres";

/** The databases the suites run against: PGlite always, PostgreSQL when DATABASE_URL is set. */
export const databaseKinds: DatabaseKind[] = process.env.DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];

export type TestDatabase = {
  db: Database;
  kind: DatabaseKind;
  url?: string;
  dataDir?: string;
  drop(): Promise<void>;
};

/**
 * A new, migrated, empty database of `kind`: a PGlite folder in the temp dir, or a PostgreSQL database
 * created for this test on DATABASE_URL's server. `drop` closes and removes it.
 */
export async function createTestDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  if (kind === "pglite") {
    const dataDir = mkdtempSync(join(tmpdir(), "sextant-test-"));
    const db = await openDatabase({ dataDir });
    await migrate(db);
    return {
      db,
      kind,
      dataDir,
      async drop() {
        await db.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const server = process.env.DATABASE_URL as string;
  const name = `sextant_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = postgres(server, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  const db = await openDatabase({ databaseUrl: url.toString() });
  await migrate(db);
  return {
    db,
    kind,
    url: url.toString(),
    async drop() {
      await db.close();
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/**
 * A fingerprint of every table's content: row count and an md5 over all rows in key order. Two
 * databases with equal fingerprints hold the same rows.
 */
export async function fingerprint(db: Database): Promise<Record<string, string>> {
  const tables: Record<string, string> = {
    blocks: "number",
    transactions: "block_number, index",
    address_transactions: "address, block_number, transaction_index",
    logs: "block_number, log_index",
    withdrawals: "index",
    token_transfers: "block_number, log_index",
    address_token_transfers: "address, block_number, log_index",
    internal_transactions: "block_number, transaction_index, index",
    address_internal_transactions: "address, block_number, transaction_index, index",
    addresses: "hash",
    tokens: "address",
    token_balances: "token_address, token_id, holder",
    token_holders: "token_address, holder",
    checkpoints: "name",
    chain_identity: "singleton",
  };
  const result: Record<string, string> = {};
  for (const [table, order] of Object.entries(tables)) {
    const [row] = await db.query<{ count: number; digest: string | null }>(
      `SELECT count(*)::int AS count, md5(string_agg(t::text, '|' ORDER BY ${order})) AS digest FROM ${table} t`,
    );
    result[table] = `${row.count}:${row.digest}`;
  }
  return result;
}
