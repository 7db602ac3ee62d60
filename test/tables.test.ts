import { describe, expect, it } from "vitest";
import type { ColumnType } from "../src/db/table-rows.ts";
import { createRangeRows, insertTable, type TableDefinition, tables } from "../src/db/tables.ts";
import { createTestDatabase, databaseKinds, fingerprint, tableColumns } from "./support/databases.ts";

const registry = Object.values(tables) as TableDefinition[];

/** How PostgreSQL names each column type of the registry (format_type). */
const storedTypes: Record<ColumnType, string[]> = {
  bytea: ["bytea"],
  numeric: ["numeric(78,0)", "numeric"],
  int8: ["bigint"],
  int4: ["integer"],
  int2: ["smallint"],
  bool: ["boolean"],
  text: ["text"],
  "int4[]": ["integer[]"],
  "numeric[]": ["numeric(78,0)[]", "numeric[]"],
};

// The registry is the one description of the schema the writer, the reorganization and the test
// fingerprint work from: a table the migrations create and the registry lacks would be invisible to all three.
describe.each(databaseKinds)("the table registry on %s", (kind) => {
  it("names every table of the migrated schema, with its primary key and the columns' types", async () => {
    const test = await createTestDatabase(kind);
    try {
      const schema = await test.db.query<{ name: string }>(
        `SELECT table_name AS name FROM information_schema.tables
         WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations'
         ORDER BY 1`,
      );
      expect(registry.map((table) => table.name).sort()).toEqual(schema.map((table) => table.name));
      for (const table of registry) {
        const [primaryKey] = await test.db.query<{ columns: string[] }>(
          `SELECT array_agg(a.attname ORDER BY k.position)::text[] AS columns
           FROM pg_index i
           CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, position)
           JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
           WHERE i.indrelid = $1::regclass AND i.indisprimary`,
          [table.name],
        );
        expect(primaryKey?.columns, table.name).toEqual(table.key);
        const stored = new Map(
          (await tableColumns(test.db, table.name)).map((column) => [column.name, column.type]),
        );
        for (const [column, type] of Object.entries(table.columns ?? {})) {
          expect(storedTypes[type], `${table.name}.${column}`).toContain(stored.get(column));
        }
        for (const column of table.volatile ?? [])
          expect(stored.has(column), `${table.name}.${column}`).toBe(true);
      }
    } finally {
      await test.drop();
    }
  });

  it("fingerprints every table, and a changed row in any of them changes its fingerprint", async () => {
    const test = await createTestDatabase(kind);
    try {
      const before = await fingerprint(test.db);
      expect(Object.keys(before).sort()).toEqual(registry.map((table) => table.name).sort());
      // The seeded status rows change without a timestamp; the fingerprint sees it.
      await test.db.query("UPDATE user_operations_status SET enabled = true WHERE version = 'v07'");
      const after = await fingerprint(test.db);
      expect(after.user_operations_status).not.toEqual(before.user_operations_status);
      expect({ ...after, user_operations_status: "" }).toEqual({ ...before, user_operations_status: "" });
      // A volatile column is left out.
      await test.db.query("UPDATE user_operations_status SET configured_at = now()");
      expect(await fingerprint(test.db)).toEqual(after);
    } finally {
      await test.drop();
    }
  });

  it("moves the data version once in every transaction that writes any table, and not on reads", async () => {
    const test = await createTestDatabase(kind);
    try {
      const triggered = await test.db.query<{ name: string }>(
        `SELECT c.relname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
         WHERE t.tgname = 'bump_data_version' ORDER BY 1`,
      );
      expect(triggered.map((table) => table.name)).toEqual(
        registry
          .map((table) => table.name)
          .filter((name) => name !== "data_version")
          .sort(),
      );
      const version = async () =>
        Number((await test.db.query<{ version: string }>("SELECT version FROM data_version"))[0]?.version);
      const start = await version();
      await test.db.query("SELECT * FROM checkpoints");
      expect(await version()).toBe(start);
      await test.db.transaction(async (tx) => {
        await tx.query("INSERT INTO checkpoints (name, block_number) VALUES ('a', 1)");
        await tx.query("UPDATE checkpoints SET block_number = 2 WHERE name = 'a'");
        await tx.query("DELETE FROM checkpoints WHERE name = 'nothing'");
      });
      expect(await version()).toBe(start + 1);
      // A statement that changes no row still counts: the trigger runs before it knows.
      await test.db.query("DELETE FROM token_balances WHERE false");
      expect(await version()).toBe(start + 2);
      await expect(
        test.db.transaction(async (tx) => {
          await tx.query("DELETE FROM checkpoints WHERE name = 'a'");
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      expect(await version()).toBe(start + 2);
    } finally {
      await test.drop();
    }
  });

  it("writes every value as given by COPY: escapes, nulls, bytes, arrays and 78-digit numbers", async () => {
    const test = await createTestDatabase(kind);
    try {
      const rows = createRangeRows();
      const awkward = "back\\slash\ttab\nnewline\r\\N \\x00 é";
      const max = 2n ** 256n - 1n;
      rows.internalTransactions.push({
        block_number: 7,
        transaction_index: 0,
        index: 1,
        block_index: 1,
        type: "call",
        from_address: "0x5c",
        to_address: null,
        created_contract: undefined,
        value: max,
        gas: "0x10",
        gas_used: 0,
        input: "0x",
        output: null,
        error: awkward,
        trace_address: [0, 12],
      });
      expect(tables.internalTransactions.write).toBeUndefined();
      await test.db.transaction((tx) => insertTable(tx, "internalTransactions", rows.internalTransactions));
      const [row] = await test.db.query<Record<string, unknown>>(
        `SELECT encode(from_address, 'hex') AS from_address, to_address,
           created_contract, value::text, gas::text, gas_used::text, encode(input, 'hex') AS input, output, error,
           trace_address::text FROM internal_transactions`,
      );
      expect(row).toEqual({
        from_address: "5c",
        to_address: null,
        created_contract: null,
        value: max.toString(),
        gas: "16",
        gas_used: "0",
        input: "",
        output: null,
        error: awkward,
        trace_address: "{0,12}",
      });
    } finally {
      await test.drop();
    }
  });
});
