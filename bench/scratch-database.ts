import postgres from "postgres";

/** Return type of {@link createScratchDatabase}. */
export type ScratchDatabase = {
  /** The database's URL on the server. */
  url: string;
  /** Drops the database (its connections closed by force) and closes the admin connection. */
  drop(): Promise<void>;
};

/**
 * A database of a benchmark's own on the PostgreSQL server of `serverUrl`, created empty: one of the same
 * name that a stopped run left behind is dropped first.
 */
export async function createScratchDatabase(serverUrl: string, name: string): Promise<ScratchDatabase> {
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
