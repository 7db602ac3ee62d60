import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { inject } from "vitest";
import { type Database, openDatabase } from "../../src/db/client.ts";
import { migrate } from "../../src/db/migrate.ts";
import { type TableDefinition, tables } from "../../src/db/tables.ts";
import { only } from "./elements.ts";

export type DatabaseKind = "pglite" | "postgres";

/** The databases the suites run against: PGlite always, PostgreSQL when DATABASE_URL is set. */
export const databaseKinds: DatabaseKind[] = process.env.DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];

/** PostgreSQL when DATABASE_URL is set, for what PGlite has no counterpart of (other sessions, a server's sockets). */
export const postgresKinds: DatabaseKind[] = databaseKinds.filter((kind) => kind === "postgres");

export type TestDatabase = {
  db: Database;
  kind: DatabaseKind;
  url?: string;
  dataDir?: string;
  drop(): Promise<void>;
};

/**
 * A new data directory (`--data-dir`) holding a migrated, empty PGlite database, as a run before leaves it:
 * a copy of the template vitest's global setup made. A new PGlite cluster and its migrations take seconds
 * (some 7 s for `sextant migrate` here), a copy a third of one. Removing it is the caller's.
 */
export function pgliteDataDir(prefix = "sextant-test-"): string {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(inject("pgliteTemplate"), join(dataDir, "pglite"), { recursive: true });
  return dataDir;
}

/**
 * A new, migrated, empty database of `kind`: a PGlite folder in the temp dir, or a PostgreSQL database
 * created for this test on DATABASE_URL's server. `drop` closes and removes it.
 */
export async function createTestDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  if (kind === "pglite") {
    // The benchmarks, outside vitest, create theirs.
    const dataDir = process.env.VITEST ? pgliteDataDir() : mkdtempSync(join(tmpdir(), "sextant-test-"));
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
 * A fingerprint of every table in the registry: row count and an md5 over all rows in key order, every
 * column but those whose value depends on when something ran. Two databases with equal fingerprints
 * hold the same rows. Each row is hashed on its own first, so a table of millions of rows aggregates 32
 * characters a row, not its whole text.
 */
export async function fingerprint(db: Database): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const table of Object.values(tables) as TableDefinition[]) {
    const columns = (await tableColumns(db, table.name))
      .map((column) => column.name)
      .filter((name) => !table.volatile?.includes(name));
    const row = only(
      await db.query<{ count: number; digest: string | null }>(
        `SELECT count(*)::int AS count,
           md5(string_agg(md5(row(${columns.join(", ")})::text), '' ORDER BY ${table.key.join(", ")})) AS digest
         FROM ${table.name}`,
      ),
    );
    result[table.name] = `${row.count}:${row.digest}`;
  }
  return result;
}

/** The columns of `table` in the database's schema, in their order, with their types. */
export async function tableColumns(db: Database, table: string): Promise<{ name: string; type: string }[]> {
  return db.query<{ name: string; type: string }>(
    `SELECT column_name AS name, format_type(a.atttypid, a.atttypmod) AS type
     FROM information_schema.columns c
     JOIN pg_attribute a ON a.attrelid = (quote_ident(c.table_schema) || '.' || quote_ident(c.table_name))::regclass
       AND a.attname = c.column_name
     WHERE c.table_schema = current_schema() AND c.table_name = $1
     ORDER BY c.ordinal_position`,
    [table],
  );
}
