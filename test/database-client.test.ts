import { connect, createServer } from "node:net";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { type Database, openDatabase, type Queryable } from "../src/db/client.ts";
import { copyRows, createTableRows, insertRows } from "../src/db/table-rows.ts";
import { isDatabaseUnavailable } from "../src/db/unavailable.ts";
import { required } from "../src/required.ts";
import { createTestDatabase, databaseKinds, postgresKinds } from "./support/databases.ts";
import { only } from "./support/elements.ts";
import { freePort } from "./support/free-port.ts";
import { until } from "./support/until.ts";

// A page's time must not depend on the planner's estimates: JIT compilation once cost 0.6 s on a
// page that runs in 0.5 ms. PostgreSQL connections turn it off; PGlite has no JIT provider.
describe.each(databaseKinds)("database connections on %s", (kind) => {
  it("never compile queries with JIT", async () => {
    const test = await createTestDatabase(kind);
    try {
      const { available } = only(
        await test.db.query<{ available: boolean }>("SELECT pg_jit_available() AS available"),
      );
      const settings = [
        ...(await test.db.query<{ jit: string }>("SHOW jit")),
        ...(await test.db.transaction((tx) => tx.query<{ jit: string }>("SHOW jit"))),
      ];
      if (kind === "postgres") expect(settings).toEqual([{ jit: "off" }, { jit: "off" }]);
      else expect(available).toBe(false);
    } finally {
      await test.drop();
    }
  });
});

// A statement that asks for a generic plan keeps one plan for any values on PostgreSQL; every other
// statement is planned as PostgreSQL chooses. PGlite plans each statement anew, whatever is asked.
describe.each(databaseKinds)("plans asked for on %s", (kind) => {
  it("are generic only where asked, outside transactions, on PostgreSQL", async () => {
    const test = await createTestDatabase(kind);
    try {
      const mode = "SELECT current_setting('plan_cache_mode') AS mode, $1::int AS n";
      const modes = [
        ...(await test.db.query<{ mode: string }>(mode, [1], { genericPlan: true })),
        ...(await test.db.query<{ mode: string }>(mode, [2])),
        ...(await test.db.transaction((tx) => tx.query<{ mode: string }>(mode, [3], { genericPlan: true }))),
      ];
      const generic = kind === "postgres" ? "force_generic_plan" : "auto";
      expect(modes).toEqual([
        { mode: generic, n: 1 },
        { mode: "auto", n: 2 },
        { mode: "auto", n: 3 },
      ]);
    } finally {
      await test.drop();
    }
  });
});

// The writer sends a range's tables without waiting for one another, by COPY where it can.
describe.each(databaseKinds)("COPY in a transaction on %s", (kind) => {
  const lines = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => `${from + i}\n`).join("");
  const copy = (tx: Queryable, table: string, text: string) =>
    required(tx.copyFrom, "COPY").call(tx, table, ["n"], text);
  /** Runs `work` on a fresh database with two tables of one key column, `copied_a` and `copied_b`. */
  const withTables = async (work: (db: Database) => Promise<void>) => {
    const test = await createTestDatabase(kind);
    try {
      await test.db.exec(
        "CREATE TABLE copied_a (n int PRIMARY KEY); CREATE TABLE copied_b (n int PRIMARY KEY)",
      );
      await work(test.db);
    } finally {
      await test.drop();
    }
  };

  it("runs beside statements given before and after it, each seeing what came before", () =>
    withTables(async (db) => {
      const result = await db.transaction(async (tx) => {
        const [, , seen] = await Promise.all([
          tx.query("INSERT INTO copied_b VALUES (-1)"),
          copy(tx, "copied_a", lines(0, 20_000)),
          tx.query<{ count: number }>("SELECT count(*)::int AS count FROM copied_a"),
          copy(tx, "copied_b", lines(0, 20_000)),
          copy(tx, "copied_a", lines(20_000, 20_000)),
        ]);
        return [only(seen).count, ...(await counts(tx))];
      });
      expect(result).toEqual([20_000, 40_000, 20_001]);
    }));

  it("fails the transaction when the server rejects a row after the last one is sent", () =>
    withTables(async (db) => {
      // A duplicate key is found only once the server has the rows: after the data's end.
      await expect(
        db.transaction(async (tx) => {
          await Promise.all([
            copy(tx, "copied_a", lines(0, 10)),
            copy(tx, "copied_b", `${lines(0, 10)}${lines(5, 1)}`),
            copy(tx, "copied_a", lines(10, 10)),
          ]);
        }),
      ).rejects.toThrow(/duplicate key/);
      expect(await counts(db)).toEqual([0, 0]);
      // The connection still serves.
      await db.transaction((tx) => copy(tx, "copied_b", lines(0, 3)));
      expect(await counts(db)).toEqual([0, 3]);
    }));
});

// A query waiting for the pool's connection when that connection's transaction is cut is sent once the
// connection is dialled again: the transaction's own ROLLBACK, refused unsent, must not fail it.
describe.each(postgresKinds)(
  "a query queued behind a transaction whose backend is terminated on %s",
  (kind) => {
    it("is answered, not failed with the transaction", async () => {
      const test = await createTestDatabase(kind);
      const sql = postgres(required(test.url, "the test database's URL"), { max: 1, onnotice: () => {} });
      try {
        let pid: number | undefined;
        const transaction = sql
          .begin(async (tx) => {
            pid = only(await tx<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`).pid;
            await tx`SELECT pg_sleep(5)`;
          })
          .then(
            () => "committed",
            (error: { code?: string }) => error.code,
          );
        await until("the transaction's backend is known", async () => pid);
        const queued = sql<{ n: number }[]>`SELECT 42 AS n`.then(
          (rows) => only(rows).n,
          (error: { code?: string }) => error.code,
        );
        await test.db.query("SELECT pg_terminate_backend($1)", [pid]);
        expect({ transaction: await transaction, queued: await queued }).toEqual({
          transaction: "CONNECTION_CLOSED",
          queued: 42,
        });
      } finally {
        await sql.end({ timeout: 5 });
        await test.drop();
      }
    });
  },
);

// The writer gives a range's statements without waiting for one another: one that fails ends them all.
describe.each(postgresKinds)("statements given behind a COPY that fails on %s", (kind) => {
  it("are never sent: nothing of the transaction is committed, then or later", async () => {
    const test = await createTestDatabase(kind);
    try {
      await test.db.exec(`
          CREATE TABLE copied_a (n int PRIMARY KEY); CREATE TABLE copied_b (n int PRIMARY KEY);
          CREATE FUNCTION slowly() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN PERFORM pg_sleep(2); RETURN NULL; END $$;
          CREATE TRIGGER slowly AFTER INSERT ON copied_a FOR EACH STATEMENT EXECUTE FUNCTION slowly();`);
      const copy = (tx: Queryable, table: string, n: number) =>
        required(tx.copyFrom, "COPY").call(tx, table, ["n"], `${n}\n`);
      // The first COPY is cancelled as a statement timeout cancels it; the rest wait behind it.
      const outcome = await test.db
        .transaction(async (tx) => {
          await tx.exec("SET LOCAL statement_timeout = 300");
          await Promise.all([
            copy(tx, "copied_a", 1),
            copy(tx, "copied_b", 1),
            tx.query("INSERT INTO copied_b VALUES (2)"),
            copy(tx, "copied_a", 3),
          ]);
        })
        .then(
          () => "committed",
          (error: { code?: string }) => error.code,
        );
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect({ outcome, rows: await counts(test.db) }).toEqual({ outcome: "57014", rows: [0, 0] });
      // The connections still serve.
      await test.db.exec("DROP TRIGGER slowly ON copied_a");
      await test.db.transaction((tx) => copy(tx, "copied_a", 4));
      expect(await counts(test.db)).toEqual([1, 0]);
    } finally {
      await test.drop();
    }
  });
});

// COPY's text format escapes differently from the insert's array literals: both must store the same values.
describe.each(databaseKinds)("rows written by COPY on %s", (kind) => {
  const columns = {
    id: "int4",
    bytes: "bytea",
    amount: "numeric",
    big: "int8",
    small: "int2",
    flag: "bool",
    label: "text",
    positions: "int4[]",
    amounts: "numeric[]",
  } as const;
  const text = "tab\there, line\nbreak, return\r, back\\slash \\N, ü €";
  const filled = () => {
    const rows = createTableRows("written", columns);
    rows.push({
      id: 1,
      bytes: "0x00ff5c09",
      amount: 2n ** 256n - 1n,
      big: "0x7fffffffffffffff",
      small: -3,
      flag: true,
      label: text,
      positions: [0, 7],
      amounts: ["0x10", 5n, 3],
    });
    rows.push({
      id: 2,
      bytes: "0x",
      amount: "0",
      big: 0,
      small: 0,
      flag: false,
      label: "",
      positions: [],
      amounts: [],
    });
    rows.push({
      id: 3,
      bytes: null,
      amount: null,
      big: null,
      small: null,
      flag: null,
      label: null,
      positions: null,
      amounts: null,
    });
    return rows;
  };

  it("stores every column type as the insert does", async () => {
    const test = await createTestDatabase(kind);
    try {
      const definition = `(id int PRIMARY KEY, bytes bytea, amount numeric, big int8, small int2, flag bool,
        label text, positions int4[], amounts numeric[])`;
      await test.db.exec(`CREATE TABLE written ${definition}; CREATE TABLE inserted ${definition}`);
      await test.db.transaction(async (tx) => {
        expect(tx.copyFrom).toBeDefined();
        await copyRows(tx, filled());
        await insertRows(tx, { ...filled(), table: "inserted" });
      });
      const read = (table: string) =>
        test.db.query<Record<string, unknown>>(
          `SELECT id, encode(bytes, 'hex') AS bytes, amount::text, big::text, small, flag, label,
             positions::text, amounts::text FROM ${table} ORDER BY id`,
        );
      const written = await read("written");
      expect(written).toEqual(await read("inserted"));
      expect(written.map((row) => [row.bytes, row.label])).toEqual([
        ["00ff5c09", text],
        ["", ""],
        [null, null],
      ]);
      expect(written[0]).toMatchObject({ amount: (2n ** 256n - 1n).toString(), big: "9223372036854775807" });
    } finally {
      await test.drop();
    }
  });
});

// The driver's own sockets keep Nagle on, where a COPY waits ~85 ms: it tries a list of hosts in turn.
describe.each(postgresKinds)("a URL naming several hosts on %s", (kind) => {
  it("writes a range's rows by insert, not COPY", async () => {
    const test = await createTestDatabase(kind);
    const url = new URL(required(test.url, "the test database's URL"));
    const db = await openDatabase({
      databaseUrl: url.toString().replace(url.host, `${url.host},${url.host}`),
    });
    try {
      await db.exec("CREATE TABLE copied_a (n int PRIMARY KEY)");
      const rows = createTableRows("copied_a", { n: "int4" });
      rows.push({ n: 7 });
      const offered = await db.transaction(async (tx) => {
        await copyRows(tx, rows);
        return tx.copyFrom !== undefined;
      });
      expect(offered).toBe(false);
      expect(await db.query("SELECT n FROM copied_a")).toEqual([{ n: 7 }]);
    } finally {
      await db.close();
      await test.drop();
    }
  });
});

// A database container started beside Sextant accepts connections a few seconds after Sextant starts.
describe.each(postgresKinds)("a server that listens only a moment after it is opened on %s", () => {
  it("is waited for", async () => {
    const server = new URL(required(process.env.DATABASE_URL, "DATABASE_URL"));
    const forwarder = createServer((client) => {
      const upstream = connect(Number(server.port || 5432), server.hostname);
      client.pipe(upstream).pipe(client);
      client.on("error", () => upstream.destroy());
      upstream.on("error", () => client.destroy());
    });
    const port = await freePort();
    const listening = setTimeout(() => forwarder.listen(port, "127.0.0.1"), 1_000);
    const url = new URL(server);
    url.host = `127.0.0.1:${port}`;
    try {
      const db = await openDatabase({ databaseUrl: url.toString() });
      try {
        expect(await db.query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
      } finally {
        await db.close();
      }
    } finally {
      clearTimeout(listening);
      forwarder.close();
    }
  });
});

async function counts(db: Queryable): Promise<number[]> {
  const { a, b } = only(
    await db.query<{ a: number; b: number }>(
      "SELECT (SELECT count(*) FROM copied_a)::int AS a, (SELECT count(*) FROM copied_b)::int AS b",
    ),
  );
  return [a, b];
}

// libpq's URL form for a Unix socket, as `psql` reads it: the socket's directory in the `host` parameter.
// Over loopback TCP a large answer now and then waits 40 ms for a delayed acknowledgement (README).
describe.each(postgresKinds)("a URL naming a Unix socket on %s", (kind) => {
  it("connects through the socket, COPY included", async () => {
    const test = await createTestDatabase(kind);
    try {
      const { directories } = only(
        await test.db.query<{ directories: string }>(
          "SELECT current_setting('unix_socket_directories') AS directories",
        ),
      );
      const url = new URL(required(test.url, "the test database's URL"));
      url.searchParams.set("host", required(directories.split(",")[0], "a socket directory").trim());
      const db = await openDatabase({ databaseUrl: url.toString() });
      try {
        const copied = await db.transaction(async (tx) => {
          await tx.exec("CREATE TEMP TABLE copied (n int) ON COMMIT DROP");
          await required(tx.copyFrom, "COPY").call(tx, "copied", ["n"], "1\n2\n");
          return tx.query<{ rows: number }>("SELECT count(*)::int AS rows FROM copied");
        });
        const [where] = await db.query<{ socket: boolean; name: string }>(
          "SELECT inet_server_addr() IS NULL AS socket, current_database() AS name",
        );
        expect({ where, copied }).toEqual({
          where: { socket: true, name: url.pathname.slice(1) },
          copied: [{ rows: 2 }],
        });
      } finally {
        await db.close();
      }
    } finally {
      await test.drop();
    }
  });
});

// A backend that ends under a transaction (an outage, a restart, an administrator) takes that transaction,
// and nothing more: postgres.js 3.4.9 then flushed its own ROLLBACK to a closed socket from a setImmediate,
// a TypeError that ended the process, and a connection object that died by a FATAL message failed the
// first statement of its next life with that message (patches/postgres+3.4.9.patch).
describe.each(postgresKinds)("a transaction whose backend is terminated on %s", (kind) => {
  it("fails as unavailable, and the process and the pool go on", async () => {
    const test = await createTestDatabase(kind);
    const db = await openDatabase({ databaseUrl: required(test.url, "the test database's URL") });
    const uncaught: unknown[] = [];
    const record = (error: unknown) => uncaught.push(error);
    process.on("uncaughtException", record);
    try {
      const outcomes: string[] = [];
      const pids = new Set<number>();
      // More rounds than the pool has connections, so that terminated connections are dialled again.
      for (let round = 0; round < 12; round++) {
        let pid: number | undefined;
        const outcome = db
          .transaction(async (tx) => {
            pid = only(await tx.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).pid;
            await tx.query("SELECT pg_sleep(5)");
          })
          .then(
            () => "committed",
            (error: unknown) => (isDatabaseUnavailable(error) ? "unavailable" : String(error)),
          );
        await until("the transaction's backend is known", async () => pid);
        pids.add(required(pid, "the backend"));
        await test.db.query("SELECT pg_terminate_backend($1)", [pid]);
        outcomes.push(await outcome);
        const next = only(await db.query<{ pid: number }>("SELECT pg_backend_pid() AS pid"));
        expect(pids.has(next.pid)).toBe(false);
      }
      await new Promise((resolve) => setImmediate(resolve));
      expect({ outcomes, uncaught }).toEqual({ outcomes: Array(12).fill("unavailable"), uncaught: [] });
    } finally {
      process.off("uncaughtException", record);
      await db.close();
      await test.drop();
    }
  });
});
