import { execFile } from "node:child_process";
import { promisify } from "node:util";
import postgres from "postgres";
import type { Database } from "../src/db/client.ts";
import { type TableDefinition, tables } from "../src/db/tables.ts";
import { required } from "../src/required.ts";
import { createTestDatabase, type DatabaseKind } from "../test/support/databases.ts";
import { cpuSeconds } from "./instrument.ts";

const run = promisify(execFile);

/** A table's rows in COPY's text format, with the columns they are in. */
export type TableText = { table: string; columns: string[]; text: string; rows: number };

/**
 * Every table of the registry that holds rows, read from a PostgreSQL database (`url`) in COPY's text
 * format (by `psql`): what a pass stored, as the floor below loads it.
 */
export async function exportTables(url: string): Promise<TableText[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const exported: TableText[] = [];
    for (const { name } of Object.values(tables) as TableDefinition[]) {
      const columns = (
        await sql<{ name: string }[]>`
          SELECT attname AS name FROM pg_attribute
          WHERE attrelid = ${name}::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`
      ).map((column) => column.name);
      // psql's \copy: postgres.js's COPY TO stream at times never ends (a race between its first rows and
      // the caller's listeners).
      const { stdout: text } = await run(
        "psql",
        [url, "-qX", "-c", `\\copy ${name} (${columns.join(", ")}) TO STDOUT`],
        {
          maxBuffer: 2 ** 29,
          encoding: "utf8",
        },
      );
      const rows = text === "" ? 0 : text.split("\n").length - 1;
      if (rows > 0) exported.push({ table: name, columns, text, rows });
    }
    return exported;
  } finally {
    await sql.end();
  }
}

export type StoreFloor = {
  /** Wall time of the load and the index builds. */
  ms: number;
  /** CPU seconds the database spent on them: PostgreSQL's processes, or this process for PGlite. */
  cpuSeconds: number;
  /** Of `cpuSeconds`, those spent loading the rows, before any index was built (all, when maintained). */
  loadCpuSeconds: number;
  rows: number;
};

export type MeasureStoreFloorParameters = {
  /**
   * `after` (the floor): indexes and constraints dropped, then built over the loaded rows. `maintained`:
   * left in place, so each row's entries are inserted one by one, as a writer that follows a chain must.
   */
  indexes: "after" | "maintained";
};

/**
 * The least work `kind` can do to hold `exported`: into a freshly migrated database stripped of every
 * index, constraint, trigger and seeded row, each table loaded with one COPY, then every index and
 * constraint the migrations define built over the loaded rows (a sort per index, the cheapest way to
 * build one). Nothing is checked, merged or derived, so whatever a writer does to store the same rows
 * costs at least this much of the database. With `indexes: "maintained"`, the same load into the
 * indexed tables: what the rows cost when their indexes grow with them.
 */
export async function measureStoreFloor(
  kind: DatabaseKind,
  exported: TableText[],
  { indexes: indexing }: MeasureStoreFloorParameters = { indexes: "after" },
): Promise<StoreFloor> {
  const test = await createTestDatabase(kind);
  try {
    const { db } = test;
    const constraints = await db.query<{ table: string; name: string; definition: string }>(
      `SELECT conrelid::regclass::text AS table, conname AS name, pg_get_constraintdef(oid) AS definition
       FROM pg_constraint
       WHERE connamespace = current_schema()::regnamespace AND contype IN ('p', 'u', 'f', 'x')
       ORDER BY contype = 'f', conrelid::regclass::text, conname`,
    );
    const indexes = await db.query<{ name: string; definition: string }>(
      `SELECT indexname AS name, indexdef AS definition FROM pg_indexes
       WHERE schemaname = current_schema()
         AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE connamespace = current_schema()::regnamespace)`,
    );
    const built = indexing === "after" ? { constraints, indexes } : { constraints: [], indexes: [] };
    for (const constraint of [...built.constraints].reverse())
      await db.exec(`ALTER TABLE ${constraint.table} DROP CONSTRAINT ${constraint.name}`);
    for (const index of built.indexes) await db.exec(`DROP INDEX ${index.name}`);
    for (const { table } of exported) await db.exec(`ALTER TABLE ${table} DISABLE TRIGGER ALL`);
    // The migrations seed a few rows (the data version, settings) that the export holds too.
    await db.exec(`TRUNCATE ${exported.map(({ table }) => table).join(", ")}`);

    const started = performance.now();
    const cpu = databaseCpu(kind);
    await load(db, exported);
    const loadCpuSeconds = cpu();
    for (const index of built.indexes) await db.exec(index.definition);
    for (const constraint of built.constraints)
      await db.exec(
        `ALTER TABLE ${constraint.table} ADD CONSTRAINT ${constraint.name} ${constraint.definition}`,
      );
    const result = { ms: performance.now() - started, cpuSeconds: cpu(), loadCpuSeconds, rows: 0 };

    for (const { table, rows } of exported) {
      const [stored] = await db.query<{ count: number }>(`SELECT count(*)::int8 AS count FROM ${table}`);
      if (required(stored, `the count of ${table}`).count !== rows)
        throw new Error(
          `${kind}: ${table} holds ${stored?.count} rows after the load, ${rows} were exported`,
        );
      result.rows += rows;
    }
    return result;
  } finally {
    await test.drop();
  }
}

/** Loads each table with one COPY, each in its transaction (where both databases offer COPY). */
async function load(db: Database, exported: TableText[]) {
  for (const { table, columns, text } of exported)
    await db.transaction((tx) => required(tx.copyFrom, "COPY").call(tx, table, columns, text));
}

/** A stopwatch of the database's CPU seconds: PostgreSQL's processes, or this process (PGlite runs in it). */
function databaseCpu(kind: DatabaseKind): () => number {
  if (kind === "pglite") {
    const start = process.cpuUsage();
    return () => {
      const used = process.cpuUsage(start);
      return (used.user + used.system) / 1e6;
    };
  }
  const postgresSeconds = () => {
    const reading = cpuSeconds();
    if (!reading) throw new Error("PostgreSQL's CPU seconds are read from /proc, which this system lacks");
    return reading.postgres;
  };
  const start = postgresSeconds();
  return () => postgresSeconds() - start;
}
