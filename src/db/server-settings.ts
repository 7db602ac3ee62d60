import type { Database } from "./client.ts";

/** Below this, `shared_buffers` was left near PostgreSQL's default (128 MB) rather than sized for a sync. */
export const smallSharedBuffersBytes = 1024 ** 3;

/**
 * PostgreSQL's `shared_buffers`, in bytes. With the default 128 MB, a sync past a few million transactions
 * writes at half the rate: the indexes keyed by address, which each range writes into at random places, no
 * longer fit, and every insert moves pages to and from the kernel (docs/performance.md, "PostgreSQL
 * settings"). Null on PGlite, whose memory is the process's.
 */
export async function readSharedBuffers(db: Pick<Database, "kind" | "query">): Promise<number | null> {
  if (db.kind !== "postgres") return null;
  const [row] = await db.query<{ bytes: string }>(
    "SELECT setting::bigint * current_setting('block_size')::bigint AS bytes FROM pg_settings WHERE name = 'shared_buffers'",
  );
  return row === undefined ? null : Number(row.bytes);
}
