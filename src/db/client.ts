import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { PGlite, types } from "@electric-sql/pglite";
import postgres from "postgres";

/** Runs SQL with `$1`-style parameters; the same text runs on PostgreSQL and PGlite. */
export type Queryable = {
  query<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<Row[]>;
  /** Runs several statements without parameters (migrations). */
  exec(text: string): Promise<void>;
  /**
   * Loads rows given in COPY's text format (tab-separated, `\\N` for null) into `columns` of `table`.
   * PGlite only: postgres.js 3.4 never settles a COPY the server rejects after its last row (the stream
   * waits for a completion that never comes), and each COPY waits ~90 ms on Nagle's algorithm; on
   * PostgreSQL rows are inserted instead.
   */
  copyFrom?(table: string, columns: readonly string[], text: string): Promise<void>;
};

export type Database = Queryable & {
  kind: "postgres" | "pglite";
  /** Runs `work` in one transaction: all of it is committed or none of it. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
};

export type OpenDatabaseParameters = {
  /** A `postgres://` URL; without one, PGlite stores its files in `dataDir`. */
  databaseUrl?: string;
  dataDir?: string;
};

// Both drivers are made to agree: int8 as a JS number (block numbers and counts fit), numeric as a
// string, bytea as bytes.
const int8AsNumber = (value: string) => Number(value);

/** Opens PostgreSQL when a URL is given, else the embedded PGlite database. */
export async function openDatabase({ databaseUrl, dataDir }: OpenDatabaseParameters): Promise<Database> {
  if (databaseUrl) return openPostgres(databaseUrl);
  if (!dataDir) throw new Error("openDatabase needs a databaseUrl, or a dataDir for PGlite");
  const path = join(dataDir, "pglite");
  mkdirSync(path, { recursive: true });
  return openPglite(path);
}

async function openPglite(path: string): Promise<Database> {
  const lite = await PGlite.create(path, { parsers: { [types.INT8]: int8AsNumber } });
  const wrap = (target: Pick<PGlite, "query" | "exec">): Queryable => ({
    async query<Row>(text: string, params: unknown[] = []) {
      return (await target.query<Row>(text, params)).rows;
    },
    async exec(text: string) {
      await target.exec(text);
    },
    async copyFrom(table: string, columns: readonly string[], text: string) {
      await target.query(`COPY ${table} (${columns.join(", ")}) FROM '/dev/blob'`, [], {
        blob: new Blob([text]),
      });
    },
  });
  return {
    kind: "pglite",
    ...wrap(lite),
    transaction: (work) => lite.transaction((tx) => work(wrap(tx))),
    close: () => lite.close(),
  };
}

async function openPostgres(url: string): Promise<Database> {
  const sql = postgres(url, {
    max: 10,
    onnotice: () => {},
    // No JIT compilation: it cost more than the query itself (0.6 s for a page that runs in 0.5 ms) as
    // soon as an estimate crossed jit_above_cost, and a page's time must not depend on the planner's
    // estimates. PGlite has no JIT.
    connection: { jit: "off" },
    types: {
      int8: { to: 20, from: [20], serialize: (value: unknown) => String(value), parse: int8AsNumber },
    },
  });
  await sql`select 1`;
  const wrap = (target: postgres.Sql | postgres.TransactionSql): Queryable => ({
    async query<Row>(text: string, params: unknown[] = []) {
      // Named and kept per connection: planning a page's joins took 4.2 ms of a 5 ms statement, and a
      // statement with parameters is always one statement, which is what a prepared statement must be.
      return (await target.unsafe(text, params as postgres.ParameterOrJSON<never>[], {
        prepare: params.length > 0,
      })) as unknown as Row[];
    },
    async exec(text: string) {
      await target.unsafe(text);
    },
  });
  return {
    kind: "postgres",
    ...wrap(sql),
    transaction: (work) => sql.begin((tx) => work(wrap(tx))) as Promise<never>,
    close: () => sql.end({ timeout: 5 }),
  };
}
