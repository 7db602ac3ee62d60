import type { Address } from "viem";
import type { EntryPointGroup, EntryPoints } from "../indexer/user-operations.ts";
import type { Queryable } from "./client.ts";
import { byteaText } from "./table-rows.ts";

export type RecordEntryPointsConfiguredReturnType = {
  /** Per group, the configured entry points whose stored logs were never scanned. */
  unscanned: Record<EntryPointGroup, Address[]>;
};

/**
 * Records which entry-point versions are enabled as the indexer starts. Past RPC indexing starts over
 * (it is finished again once catch-up reaches the head), and past stored-log indexing is finished only
 * for groups whose every configured entry point was scanned before; the others are returned for scanning.
 */
export async function recordEntryPointsConfigured(
  db: Queryable,
  entryPoints: EntryPoints,
): Promise<RecordEntryPointsConfiguredReturnType> {
  const rows = await db.query<{ version: EntryPointGroup; scanned: string[] }>(
    `SELECT version, array(SELECT '0x' || encode(a, 'hex') FROM unnest(scanned_entry_points) a) AS scanned
     FROM user_operations_status`,
  );
  const unscanned = { v06: [], v07: [], v08: [] } as RecordEntryPointsConfiguredReturnType["unscanned"];
  for (const group of Object.keys(unscanned) as EntryPointGroup[]) {
    const scanned = new Set(rows.find((row) => row.version === group)?.scanned ?? []);
    unscanned[group] = entryPoints[group].filter((address) => !scanned.has(address.toLowerCase()));
    const enabled = entryPoints[group].length > 0;
    // An entry point left out of this configuration is not indexed from now on: were it configured again,
    // the logs stored meanwhile would need scanning, so it no longer counts as scanned.
    const stillScanned = entryPoints[group]
      .map((address) => address.toLowerCase())
      .filter((address) => scanned.has(address));
    await db.query(
      `UPDATE user_operations_status SET configured_at = now(), enabled = $2, past_db_logs_indexing_finished = $3,
         past_rpc_logs_indexing_finished = false, live_until = NULL, scanned_entry_points = $4::text[]::bytea[]
       WHERE version = $1`,
      [
        group,
        enabled,
        enabled && unscanned[group].length === 0,
        stillScanned.map((address) => byteaText(address)),
      ],
    );
  }
  return { unscanned };
}

/** Records that the stored logs of `entryPoints` were scanned into `user_operations`. */
export async function recordStoredLogsScanned(db: Queryable, entryPoints: EntryPoints): Promise<void> {
  for (const group of Object.keys(entryPoints) as EntryPointGroup[]) {
    if (entryPoints[group].length === 0) continue;
    await db.query(
      `UPDATE user_operations_status SET past_db_logs_indexing_finished = true,
         scanned_entry_points = $2::text[]::bytea[]
       WHERE version = $1`,
      [group, entryPoints[group].map((address) => byteaText(address.toLowerCase()))],
    );
  }
}

/** Records that catch-up reached the node's head: every enabled group's past RPC indexing is finished. */
export async function recordPastRpcIndexed(db: Queryable): Promise<void> {
  await db.query("UPDATE user_operations_status SET past_rpc_logs_indexing_finished = true WHERE enabled");
}

/**
 * Records that the indexer follows the head: enabled groups are live for `ttlMs` from now (the
 * database's clock, which every reader shares).
 */
export async function recordHeartbeat(db: Queryable, ttlMs: number): Promise<void> {
  await db.query(
    "UPDATE user_operations_status SET live_until = now() + $1::int * interval '1 millisecond' WHERE enabled",
    [ttlMs],
  );
}
