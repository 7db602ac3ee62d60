import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { PGlite, types } from "@electric-sql/pglite";
import postgres from "postgres";
import { BaseError } from "../errors.ts";
import { retry } from "../retry.ts";
import { orAborted } from "../signals.ts";
import { isDatabaseUnavailable } from "./unavailable.ts";

/** How a statement is run. */
export type QueryOptions = {
  /**
   * Plan the statement once per connection for any values (PostgreSQL's generic plan) instead of again at
   * every execution, which can cost as much as running it, and read it in index order (`orderedScans`).
   * Only for a statement whose right plan is the same index ranges whatever its values: a plan kept for any
   * values cannot see that a value is rare or old (docs/performance.md, "Generic plans, statement by
   * statement"). PGlite keeps no plans: there the statement is planned with its values. Statements in a
   * transaction are planned as usual.
   */
  genericPlan?: boolean;
  /**
   * Plan the statement without bitmap scans (`orderedScanSettings`): for a page read from index ranges in
   * their order, which must stop at its limit whatever the estimates. On PGlite such a statement runs in a
   * transaction of its own with the setting; statements in a transaction are planned as usual.
   */
  orderedScans?: boolean;
};

/**
 * The settings of statements with `orderedScans`. A bitmap scan reads every row of its index range and sorts
 * them; the planner picks it over reading the range in order when it expects few rows. For a page, the
 * estimate can be far off: a key the statement reads itself, or one common for one address and rare in the
 * table, was expected to match a few rows and matched every one of an address's ties (endpoint 2 sorted by
 * value or fee), or every match of a topic (endpoint 3, in the plan kept for any values). Without bitmap
 * scans, the page is read from its ranges in order and stops at its end.
 */
export const orderedScanSettings = { enable_bitmapscan: "off" } as const;

/** The settings under which statements with `genericPlan` are planned: kept plans, read in index order. */
export const genericPlanSettings = {
  plan_cache_mode: "force_generic_plan",
  ...orderedScanSettings,
} as const;

/** Runs SQL with `$1`-style parameters; the same text runs on PostgreSQL and PGlite. */
export type Queryable = {
  query<Row = Record<string, unknown>>(
    text: string,
    params?: unknown[],
    options?: QueryOptions,
  ): Promise<Row[]>;
  /** Runs several statements without parameters (migrations). */
  exec(text: string): Promise<void>;
  /**
   * Loads rows given in COPY's text format (tab-separated, `\\N` for null) into `columns` of `table`.
   * Offered by PGlite and by a PostgreSQL transaction (on the pool a COPY could share its connection with
   * others' statements); where absent, the registry inserts instead.
   */
  copyFrom?(table: string, columns: readonly string[], data: string | Uint8Array<ArrayBuffer>): Promise<void>;
};

export type Database = Queryable & {
  kind: "postgres" | "pglite";
  /** Runs `work` in one transaction: all of it is committed or none of it. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Runs `work` on one connection of its own, outside any transaction, so that a setting it makes with
   * `SET` holds for its statements (PGlite has one connection). The setting stays with the connection:
   * `work` resets it.
   */
  session<T>(work: (session: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
};

/**
 * Runs `work` in one transaction of `db` that no `statement_timeout` set for the role or the database cuts
 * short. Such a limit is meant for reads; it would cancel a range's write on every retry alike, and the
 * indexer would never move on. A cancel by an administrator still ends it.
 */
export function writeTransaction<T>(db: Database, work: (tx: Queryable) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.exec("SET LOCAL statement_timeout = 0");
    return work(tx);
  });
}

/**
 * Runs `work` on one connection of `db`, outside any transaction, that no `statement_timeout` set for the
 * role or the database cuts short: for what cannot run in a transaction and takes long on a large
 * database (`REINDEX ... CONCURRENTLY`, `ANALYZE`), which such a limit, meant for reads, would cancel
 * every time.
 */
export function maintenanceSession<T>(db: Database, work: (session: Queryable) => Promise<T>): Promise<T> {
  return db.session(async (session) => {
    await session.exec("SET statement_timeout = 0");
    try {
      return await work(session);
    } finally {
      await session.exec("RESET statement_timeout");
    }
  });
}

export type OpenDatabaseParameters = {
  /** A `postgres://` URL; without one, PGlite stores its files in `dataDir`. */
  databaseUrl?: string;
  dataDir?: string;
  /**
   * A PostgreSQL server that cannot be reached now is no error: the database is returned at once (after
   * 2 s for one that does not answer at all) and its statements fail as unavailable until the server
   * answers (a read replica, which the API passes over meanwhile). A server that answers with a refusal (no
   * such database or role) still fails the opening.
   */
  mayBeAway?: boolean;
  /** Ends the wait for a PostgreSQL server that cannot be reached yet (the process is stopping). */
  signal?: AbortSignal;
};

// Both drivers are made to agree: int8 as a JS number (block numbers and counts fit), numeric as a
// string, bytea as bytes.
const int8AsNumber = (value: string) => Number(value);

/**
 * A database that cannot be opened for a reason the operator fixes (a data directory that cannot be
 * written, a PGlite database another process holds, a PostgreSQL server that cannot be reached, a database
 * or role that does not exist): the CLI prints its one line and exits with code 2.
 */
export class DatabaseSetupError extends BaseError {
  override name = "DatabaseSetupError";
  override readonly isUserError = true;
}

/** Node's codes for a data directory that cannot be created or written. */
const unusableDirectoryCodes = new Set(["EACCES", "EPERM", "ENOTDIR", "EROFS", "EEXIST", "ENOSPC", "ELOOP"]);

/** Opens PostgreSQL when a URL is given, else the embedded PGlite database. */
export async function openDatabase({
  databaseUrl,
  dataDir,
  mayBeAway = false,
  signal,
}: OpenDatabaseParameters): Promise<Database> {
  if (databaseUrl) return openPostgres(databaseUrl, { mayBeAway, signal });
  if (!dataDir) throw new Error("openDatabase needs a databaseUrl, or a dataDir for PGlite");
  const path = join(dataDir, "pglite");
  let unlock: () => void;
  try {
    mkdirSync(path, { recursive: true });
    unlock = lockPglite(dataDir);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string" && unusableDirectoryCodes.has(code))
      throw new DatabaseSetupError(
        `cannot write the data directory ${dataDir} (${code}): set --data-dir or SEXTANT_DATA_DIR to a folder this user can write`,
        { cause: error },
      );
    throw error;
  }
  try {
    return await openPglite(path, unlock);
  } catch (error) {
    unlock();
    throw error;
  }
}

/**
 * Takes the data directory's PGlite for this process: PGlite is one process's database, and a second one
 * opening the same files would read stale pages and overwrite the first one's writes.
 * @throws {DatabaseSetupError} when a live process holds it.
 */
function lockPglite(dataDir: string): () => void {
  return lockDirectory(dataDir, "pglite.pid", (holder) => {
    return `the PGlite database in ${dataDir} is in use by process ${holder}: PGlite allows one process at a time (stop it, set another --data-dir, or use PostgreSQL with DATABASE_URL)`;
  });
}

/**
 * Takes `dir` for this process with a file (`name`) naming it; one left by a process that is gone (killed,
 * or a crash) is taken over.
 * @returns what releases the lock.
 * @throws {DatabaseSetupError} with `inUse`'s message when a live process holds it.
 */
export function lockDirectory(dir: string, name: string, inUse: (holder: number) => string): () => void {
  const lockFile = join(dir, name);
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(lockFile, `${process.pid}\n`, { flag: "wx" });
      return () => rmSync(lockFile, { force: true });
    } catch (error) {
      if ((error as { code?: unknown }).code !== "EEXIST" || attempt > 0) throw error;
    }
    const holder = Number(readFileSync(lockFile, "utf8").trim());
    // This process's own lock is one it left (a database closed without closing it, or a container's
    // process that has the same pid after each restart).
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isRunning(holder))
      throw new DatabaseSetupError(inUse(holder));
    rmSync(lockFile, { force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as { code?: unknown }).code === "EPERM";
  }
}

async function openPglite(path: string, unlock: () => void): Promise<Database> {
  const lite = await PGlite.create(path, { parsers: { [types.INT8]: int8AsNumber } });
  const wrap = (target: Pick<PGlite, "query" | "exec">): Queryable => ({
    async query<Row>(text: string, params: unknown[] = []) {
      return (await target.query<Row>(text, params)).rows;
    },
    async exec(text: string) {
      await target.exec(text);
    },
    async copyFrom(table: string, columns: readonly string[], data: string | Uint8Array<ArrayBuffer>) {
      await target.query(`COPY ${table} (${columns.join(", ")}) FROM '/dev/blob'`, [], {
        blob: new Blob([data]),
      });
    },
  });
  const pooled = wrap(lite);
  return {
    kind: "pglite",
    ...pooled,
    query: (text, params, { genericPlan = false, orderedScans = genericPlan } = {}) =>
      orderedScans
        ? lite.transaction(async (tx) => {
            await tx.exec(`SET LOCAL enable_bitmapscan = ${orderedScanSettings.enable_bitmapscan}`);
            return wrap(tx).query(text, params);
          })
        : pooled.query(text, params),
    transaction: (work) => lite.transaction((tx) => work(wrap(tx))),
    session: (work) => work(wrap(lite)),
    close: async () => {
      try {
        await lite.close();
      } finally {
        unlock();
      }
    },
  };
}

/**
 * How long a PostgreSQL server that cannot be reached when a database is opened is tried again: a
 * database container started beside Sextant takes a few seconds to accept connections, and a wrong host
 * or port must not keep an operator waiting long. Once open, an outage is waited out however long it lasts.
 */
const reachWithinMs = 5_000;
/** How long a server that may be away (`mayBeAway`) is waited for when it does not answer at all. */
const awayAfterMs = 2_000;

/**
 * What stops a PostgreSQL database from being opened, as one line naming the server (its host and port,
 * never the URL's password): a server that cannot be reached (after {@link reachWithinMs}), a database that
 * does not exist (3D000), a role that does not exist or that `pg_hba.conf` does not admit (28000), a wrong
 * password (28P01). Anything else is left as it is.
 */
function setupErrorOf(
  error: unknown,
  { host, port, database }: { host: string[]; port: number[]; database: string },
): DatabaseSetupError | undefined {
  const { code, message } = error as { code?: unknown; message?: unknown };
  const server = host.map((name, index) => `${name}:${port[index] ?? port[0]}`).join(",");
  if (isDatabaseUnavailable(error)) {
    // The server's own words when it answered (starting up, too many clients); otherwise the driver's or
    // Node's code, as its message only repeats the address.
    const reason = error instanceof postgres.PostgresError ? message : code;
    return new DatabaseSetupError(
      `cannot reach PostgreSQL at ${server} (${String(reason)}) within ${reachWithinMs / 1000} s: start it, or fix the host or port in the database URL`,
      { cause: error },
    );
  }
  if (code !== "3D000" && code !== "28000" && code !== "28P01") return undefined;
  const hint =
    code === "3D000"
      ? `create it (CREATE DATABASE ${database}) or fix the database URL`
      : "fix the user or password in the database URL";
  return new DatabaseSetupError(`PostgreSQL at ${server} refused: ${String(message)}; ${hint}`, {
    cause: error,
  });
}

/**
 * A TCP connection with Nagle's algorithm off, for postgres.js's `socket` option. The driver writes a
 * COPY's data and its end in two writes: with Nagle on, the end waited for the server's delayed
 * acknowledgement, ~85 ms a COPY (20 one-row COPYs: 1,715 ms, 15 ms with it off). Returned while it
 * connects, as the driver's own socket is: the driver writes into it at once, and its connection timeout,
 * errors and reconnection apply unchanged. `host` names the server for TLS, as on the driver's socket.
 */
function connectWithoutDelay(host: string, port: number): Socket {
  return Object.assign(connect({ host, port, noDelay: true }), { host });
}

/**
 * COPY … FROM STDIN through postgres.js 3.4, settled however the server answers. The driver hands an
 * error that comes after the data's end (a duplicate key is found then) to the query's `reject`, whose
 * promise already resolved to the stream, and never ends the stream: the COPY would wait forever. The
 * query's `reject` is wrapped so that the error reaches the caller.
 */
async function copyIn(
  target: postgres.TransactionSql,
  statement: string,
  data: string | Uint8Array<ArrayBuffer>,
) {
  const query = target.unsafe(statement) as postgres.PendingQuery<postgres.Row[]> & {
    reject: (error: unknown) => void;
  };
  const rejectQuery = query.reject;
  const rejected = new Promise<never>((_, reject) => {
    query.reject = (error) => {
      reject(error);
      rejectQuery(error);
    };
  });
  // Rejected by a failure before the data is sent too, when no one awaits it yet.
  rejected.catch(() => {});
  const stream = await Promise.race([query.writable(), rejected]);
  await Promise.race([pipeline(Readable.from([data]), stream), rejected]);
}

/**
 * libpq's `host` query parameter, taken out of a URL: `postgres://user@localhost/db?host=/var/run/postgresql`
 * names a Unix socket's directory (or hosts) the way `psql` reads it. postgres.js would send it to the server
 * as a setting, which the server refuses.
 */
function takeHostParameter(databaseUrl: string): { url: string; host?: string } {
  // The query alone is parsed: a URL naming several hosts (`h1:5432,h2:5432`) is no WHATWG URL.
  const start = databaseUrl.indexOf("?");
  if (start === -1) return { url: databaseUrl };
  const query = new URLSearchParams(databaseUrl.slice(start + 1));
  const host = query.get("host");
  if (host === null) return { url: databaseUrl };
  query.delete("host");
  const rest = query.toString();
  return { url: databaseUrl.slice(0, start) + (rest ? `?${rest}` : ""), host };
}

async function openPostgres(
  databaseUrl: string,
  { mayBeAway, signal }: { mayBeAway: boolean; signal?: AbortSignal },
): Promise<Database> {
  const { url, host: hostParameter } = takeHostParameter(databaseUrl);
  const named = hostParameter === undefined ? {} : { host: hostParameter };
  // Parsed by the driver without connecting: which server the URL names.
  const { host, port, path } = postgres(url, named).options;
  const oneTcpServer = !path && host.length === 1;
  // Behind the driver's own TCP sockets a COPY waits ~85 ms on Nagle: rows are inserted instead.
  const copies = Boolean(path) || oneTcpServer;
  const options = {
    ...named,
    max: 10,
    onnotice: () => {},
    // No JIT compilation: it cost more than the query itself (0.6 s for a page that runs in 0.5 ms) as
    // soon as an estimate crossed jit_above_cost, and a page's time must not depend on the planner's
    // estimates. PGlite has no JIT.
    connection: { jit: "off" },
    // The driver dials again only for a statement that waits, after a delay that by default grows with
    // every failed dial to 20 s: in an outage a request waited that long before its 503, and as long after
    // the server was back. Its callers pace themselves (the indexer backs off, the API answers 503 with
    // Retry-After): the driver waits at most half a second between dials.
    backoff: (failures: number) => Math.min(0.01 * 2 ** failures, 0.5),
    types: {
      int8: { to: 20, from: [20], serialize: (value: unknown) => String(value), parse: int8AsNumber },
    },
    // One TCP server: the socket is ours, with Nagle off. A Unix socket has no Nagle, and a list of hosts
    // is tried in turn by the driver's own sockets, which a socket of ours would bypass.
    ...(oneTcpServer && {
      socket: () => connectWithoutDelay(host[0] as string, port[0] as number),
    }),
  };
  // The server is first asked by a connection of its own, which gives up on one that does not answer at all
  // (a host that drops packets, or takes connections and says nothing) when the wait ends: the pool's
  // connections wait the driver's 30 s, as an outage's reconnections should. A connect timeout the operator
  // set (`?connect_timeout=`, PGCONNECT_TIMEOUT) is kept: a database that resumes on connection (a
  // serverless one) may answer the first only after seconds.
  const waitMs = mayBeAway ? awayAfterMs : reachWithinMs;
  const connectTimeoutSet = /[?&]connect_timeout=/.test(url) || process.env.PGCONNECT_TIMEOUT !== undefined;
  // `socket` is a documented option of postgres.js that its types leave out.
  const probe = postgres(url, {
    ...options,
    max: 1,
    ...(!connectTimeoutSet && { connect_timeout: waitMs / 1000 }),
  } as typeof options & postgres.Options<never>);
  try {
    // A stop ends the wait at once, even during a try.
    await orAborted(
      retry(() => probe`select 1`, {
        withinMs: mayBeAway ? 0 : waitMs,
        delayMs: 250,
        maxDelayMs: 500,
        signal,
      }),
      signal,
    );
  } catch (error) {
    if (!(mayBeAway && isDatabaseUnavailable(error)))
      throw setupErrorOf(error, { host, port, database: probe.options.database }) ?? error;
  } finally {
    // Not left open: its connection would keep the process alive after a failure is reported.
    await probe.end({ timeout: 0 });
  }
  const sql = postgres(url, options as typeof options & postgres.Options<never>);
  // The statements that ask for generic plans or ordered scans have connections of their own, where those are
  // the settings: a setting per statement would cost a round trip (or a transaction) each time. The driver
  // opens a pool's connections as statements wait for one.
  const withSettings = (settings: Record<string, string>) =>
    postgres(url, {
      ...options,
      connection: { ...options.connection, ...settings },
    } as typeof options & postgres.Options<never>);
  const generic = withSettings(genericPlanSettings);
  const ordered = withSettings(orderedScanSettings);
  // Named and kept per connection: planning a page's joins took 4.2 ms of a 5 ms statement, and a
  // statement with parameters is always one statement, which is what a prepared statement must be.
  const query = <Row>(target: postgres.Sql | postgres.TransactionSql, text: string, params: unknown[]) =>
    target.unsafe(text, params as postgres.ParameterOrJSON<never>[], {
      prepare: params.length > 0,
    }) as unknown as Promise<Row[]>;
  const pooled: Queryable = {
    query: (text, params = [], { genericPlan = false, orderedScans = false } = {}) =>
      query(genericPlan ? generic : orderedScans ? ordered : sql, text, params),
    async exec(text) {
      await sql.unsafe(text);
    },
  };
  /**
   * A transaction's connection, where COPY is offered. The driver sends a statement as soon as it is
   * given, and one that reaches the server during a COPY breaks the connection: statements given after
   * a COPY wait for it. (On the pool a COPY could share its connection with anyone's statements.)
   *
   * A statement given once another has failed, or once `work` has settled, is refused unsent, with the
   * failure. The server would refuse it too while the transaction lasts, but the driver sends a
   * transaction's statements to its connection even after the ROLLBACK has handed that connection back to
   * the pool: a write queued behind a failed COPY committed on its own, half a range.
   */
  const transactional = (tx: postgres.TransactionSql) => {
    let copying: Promise<unknown> = Promise.resolve();
    let ended: { error: unknown } | null = null;
    const send = async <T>(run: () => Promise<T>) => {
      await copying;
      if (ended) throw ended.error;
      try {
        return await run();
      } catch (error) {
        ended ??= { error };
        throw error;
      }
    };
    const queryable: Queryable = {
      query: (text, params = []) => send(() => query(tx, text, params)),
      exec: (text) => send(async () => void (await tx.unsafe(text))),
    };
    const end = () => {
      ended ??= { error: new Error("a statement was given after its transaction ended") };
    };
    if (!copies) return { queryable, end };
    return {
      queryable: {
        ...queryable,
        copyFrom(table, columns, data) {
          const copied = send(() => copyIn(tx, `COPY ${table} (${columns.join(", ")}) FROM STDIN`, data));
          copying = copied.catch(() => {});
          return copied;
        },
      } satisfies Queryable,
      end,
    };
  };
  return {
    kind: "postgres",
    ...pooled,
    transaction: (work) => {
      let end = () => {};
      // Ended when `work` settles, and when the transaction does without it: a lost connection fails the
      // transaction while `work` may still be awaiting something else.
      return sql
        .begin(async (tx) => {
          const transaction = transactional(tx);
          end = transaction.end;
          try {
            return await work(transaction.queryable);
          } finally {
            end();
          }
        })
        .finally(() => end()) as Promise<never>;
    },
    session: async (work) => {
      const reserved = await sql.reserve();
      try {
        return await work({
          query: (text, params = []) => query(reserved, text, params),
          exec: async (text) => void (await reserved.unsafe(text)),
        });
      } finally {
        reserved.release();
      }
    },
    close: async () => {
      await Promise.all([sql, generic, ordered].map((pool) => pool.end({ timeout: 5 })));
    },
  };
}
