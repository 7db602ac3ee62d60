import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { createTestDatabase, postgresKinds } from "../../test/support/databases.ts";
import { DatabaseSetupError, openDatabase } from "./client.ts";
import { isDatabaseUnavailable } from "./unavailable.ts";

/** What opening `databaseUrl` fails with. */
async function openingError(databaseUrl: string): Promise<unknown> {
  const db = await openDatabase({ databaseUrl }).catch((error: unknown) => ({ error }));
  if ("error" in db) return db.error;
  await db.close();
  throw new Error(`${databaseUrl} opened`);
}

describe("a database that cannot be dialled now", () => {
  it("is unavailable, not broken: a Unix socket absent while its server restarts, a name that does not resolve", async () => {
    // Opening tries for a few seconds, then reports the server it could not reach, the driver's error its cause.
    const reports = await Promise.all([
      openingError("postgres://postgres@localhost/sextant?host=/tmp/sextant-no-such-socket-directory"),
      openingError("postgres://postgres@sextant-no-such-host.invalid:5432/sextant"),
    ]);
    for (const report of reports) expect(report).toBeInstanceOf(DatabaseSetupError);
    const errors = reports.map((report) => (report as DatabaseSetupError).cause);
    // A machine whose resolver cannot be reached answers EAI_AGAIN for the name instead.
    const codes = errors.map((error) => (error as { code?: string }).code);
    expect(codes[0]).toBe("ENOENT");
    expect(["ENOTFOUND", "EAI_AGAIN"]).toContain(codes[1]);
    expect(errors.map(isDatabaseUnavailable)).toEqual([true, true]);
  });

  it("is told from a missing file", async () => {
    const error = await readFile("/tmp/sextant-no-such-file").catch((caught: unknown) => caught);
    expect([(error as { code?: string }).code, isDatabaseUnavailable(error)]).toEqual(["ENOENT", false]);
  });
});

describe.each(postgresKinds)("a deadlock on %s", (kind) => {
  it("is a statement to run again, not an error of the statement", async () => {
    const test = await createTestDatabase(kind);
    try {
      await test.db.exec("CREATE TABLE locked (n int PRIMARY KEY); INSERT INTO locked VALUES (1), (2)");
      let locked = 0;
      const bothLocked = async () => {
        locked += 1;
        while (locked < 2) await new Promise((resolve) => setTimeout(resolve, 10));
      };
      // Each takes one row, then waits for the other's: PostgreSQL cancels one of them.
      const lockInTurn = (first: number, second: number) =>
        test.db.transaction(async (tx) => {
          await tx.query("SELECT n FROM locked WHERE n = $1 FOR UPDATE", [first]);
          await bothLocked();
          await tx.query("SELECT n FROM locked WHERE n = $1 FOR UPDATE", [second]);
        });
      const outcomes = await Promise.allSettled([lockInTurn(1, 2), lockInTurn(2, 1)]);
      const failures = outcomes.flatMap((outcome) => (outcome.status === "rejected" ? [outcome.reason] : []));
      expect(failures.map((error) => [error.code, isDatabaseUnavailable(error)])).toEqual([["40P01", true]]);
    } finally {
      await test.drop();
    }
  });
});

describe.each(postgresKinds)("a statement cut short on %s", (kind) => {
  it("is one to run again: cancelled by a timeout or an administrator, or refused a lock in time", async () => {
    const test = await createTestDatabase(kind);
    try {
      await test.db.exec("CREATE TABLE locked (n int PRIMARY KEY); INSERT INTO locked VALUES (1)");
      const codeOf = (work: Promise<unknown>) =>
        work.then(
          () => "done",
          (error: { code?: string }) => [error.code, isDatabaseUnavailable(error)],
        );
      const timedOut = codeOf(
        test.db.transaction(async (tx) => {
          await tx.exec("SET LOCAL statement_timeout = 50");
          await tx.query("SELECT pg_sleep(5)");
        }),
      );
      const cancelled = codeOf(test.db.query("SELECT pg_sleep(5) AS cancelled"));
      await new Promise((resolve) => setTimeout(resolve, 200));
      await test.db.query(
        "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(5) AS cancelled'",
      );
      let release = () => {};
      const holding = test.db.transaction(async (tx) => {
        await tx.query("SELECT n FROM locked FOR UPDATE");
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const refused = codeOf(
        test.db.transaction(async (tx) => {
          await tx.exec("SET LOCAL lock_timeout = 50");
          await tx.query("SELECT n FROM locked FOR UPDATE");
        }),
      );
      const outcomes = await Promise.all([timedOut, cancelled, refused]);
      release();
      await holding;
      expect(outcomes).toEqual([
        ["57014", true],
        ["57014", true],
        ["55P03", true],
      ]);
    } finally {
      await test.drop();
    }
  });
});
