import type { Queryable } from "../db/client.ts";

/** Reads the database's data version; equal versions mean the same committed data. */
export type DataVersion = () => Promise<string>;

/**
 * The version of the data `db` shows: `data_version`, which a trigger on every table moves in each
 * transaction that writes, before its first row (migration 013). A reader sees a new number exactly when it
 * can see the new rows, so an answer computed after reading one number is still the answer while the number
 * stays the same: a new range, a reorganization, fetched metadata or a migration changes it; reads and other
 * databases on the same server do not.
 *
 * Concurrent callers share reads, but a caller only gets a read that started after it asked: under load
 * one query answers many requests, and none is answered from a version older than its arrival.
 */
export function createDataVersion(db: Queryable): DataVersion {
  const read = async () => {
    const [row] = await db.query<{ version: string }>("SELECT version::text AS version FROM data_version");
    if (!row) throw new Error("data_version has no row");
    return row.version;
  };
  let running: Promise<string> | null = null;
  let queued: Promise<string> | null = null;
  const start = () => {
    const reading = read().finally(() => {
      if (running === reading) running = null;
    });
    running = reading;
    return reading;
  };
  return () => {
    if (!running) return start();
    queued ??= running
      .catch(() => {})
      .then(() => {
        queued = null;
        return start();
      });
    return queued;
  };
}
