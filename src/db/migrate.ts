import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Database, writeTransaction } from "./client.ts";

const folder = join(dirname(fileURLToPath(import.meta.url)), "migrations");

export type MigrateReturnType = { applied: string[] };

/**
 * Applies the migrations in `src/db/migrations/` that the database has not seen, each in its own
 * transaction and in file-name order. Running it again applies nothing.
 */
export async function migrate(db: Database): Promise<MigrateReturnType> {
  await db.exec(
    "CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
  );
  const done = new Set(
    (await db.query<{ name: string }>("SELECT name FROM schema_migrations")).map((row) => row.name),
  );
  const applied: string[] = [];
  for (const file of readdirSync(folder)
    .filter((name) => name.endsWith(".sql"))
    .sort()) {
    if (done.has(file)) continue;
    const text = readFileSync(join(folder, file), "utf8");
    await writeTransaction(db, async (tx) => {
      await tx.exec(text);
      await tx.query("INSERT INTO schema_migrations (name) VALUES ($1)", [file]);
    });
    applied.push(file);
  }
  return { applied };
}
