import type { Queryable } from "../client.ts";

/** The state of one group of entry points, in the user-ops indexer's names. */
export type EntryPointIndexerStatus = {
  enabled: boolean;
  live: boolean;
  past_db_logs_indexing_finished: boolean;
  past_rpc_logs_indexing_finished: boolean;
};

export type AccountAbstractionStatus = {
  finished_past_indexing: boolean;
  v06: EntryPointIndexerStatus;
  v07: EntryPointIndexerStatus;
  /** v0.7 and v0.8 together, as current Blockscout groups them. */
  v07_v08: EntryPointIndexerStatus;
};

/**
 * The ERC-4337 indexing state the indexer recorded: per version enabled, the two past-indexing flags, and
 * live while its last heartbeat is fresh (judged by the database clock the heartbeat was written with).
 * A group of several versions is enabled when any is and has a flag when every enabled one has it;
 * `finished_past_indexing` holds once an indexer started and every enabled version finished both past
 * indexings.
 */
export async function readAccountAbstractionStatus(db: Queryable): Promise<AccountAbstractionStatus> {
  const rows = await db.query<{
    version: string;
    configured: boolean;
    enabled: boolean;
    live: boolean;
    past_db_logs_indexing_finished: boolean;
    past_rpc_logs_indexing_finished: boolean;
  }>(
    `SELECT version, configured_at IS NOT NULL AS configured, enabled, coalesce(live_until > now(), false) AS live,
       past_db_logs_indexing_finished, past_rpc_logs_indexing_finished
     FROM user_operations_status`,
  );
  const group = (versions: string[]): EntryPointIndexerStatus => {
    const enabled = rows.filter((row) => versions.includes(row.version) && row.enabled);
    const all = (flag: keyof EntryPointIndexerStatus) =>
      enabled.length > 0 && enabled.every((row) => row[flag]);
    return {
      enabled: enabled.length > 0,
      live: all("live"),
      past_db_logs_indexing_finished: all("past_db_logs_indexing_finished"),
      past_rpc_logs_indexing_finished: all("past_rpc_logs_indexing_finished"),
    };
  };
  const v06 = group(["v06"]);
  const v07 = group(["v07"]);
  const v07_v08 = group(["v07", "v08"]);
  const finished = (status: EntryPointIndexerStatus) =>
    !status.enabled || (status.past_db_logs_indexing_finished && status.past_rpc_logs_indexing_finished);
  return {
    // Before an indexer recorded its configuration nothing is known, not even that nothing is enabled.
    finished_past_indexing: rows.some((row) => row.configured) && [v06, v07_v08].every(finished),
    v06,
    v07,
    v07_v08,
  };
}
