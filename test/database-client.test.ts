import { describe, expect, it } from "vitest";
import { createTestDatabase, databaseKinds } from "./support/databases.ts";
import { only } from "./support/elements.ts";

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
