import type { Database } from "../db/client.ts";
import { byteaText, insertRows } from "../db/table-rows.ts";
import { recordEntryPointsConfigured, recordStoredLogsScanned } from "../db/user-operations-status.ts";
import type { Logger } from "../logger.ts";
import {
  type BundleTransaction,
  type EntryPoints,
  extractUserOperations,
  userOperationRows,
  userOperationsOnConflict,
} from "./user-operations.ts";

export type ScanStoredUserOperationsParameters = {
  entryPoints: EntryPoints;
  logger: Logger;
  /** Blocks read and written per database transaction. */
  batchBlocks?: number;
};

export type ScanStoredUserOperationsReturnType = { found: number };

/**
 * Records the configured entry points in the status table and reads the user operations of entry points
 * whose logs are already stored (indexed before the feature existed or before the entry point was
 * configured) from the `logs` table, in batches of blocks, then marks that done. Run it before writing
 * new ranges: it covers what is stored now, catch-up covers the rest.
 */
export async function scanStoredUserOperations(
  db: Database,
  { entryPoints, logger, batchBlocks = 10_000 }: ScanStoredUserOperationsParameters,
): Promise<ScanStoredUserOperationsReturnType> {
  const { unscanned } = await recordEntryPointsConfigured(db, entryPoints);
  const addresses = Object.values(unscanned).flat();
  let found = 0;
  if (addresses.length > 0) {
    const params = [addresses.map((address) => byteaText(address.toLowerCase()))];
    const [bounds] = await db.query<{ low: number | null; high: number | null }>(
      `SELECT min(block_number) AS low, max(block_number) AS high FROM logs
       WHERE address = ANY($1::text[]::bytea[])`,
      params,
    );
    for (
      let from = bounds.low;
      from !== null && bounds.high !== null && from <= bounds.high;
      from += batchBlocks
    ) {
      const to = Math.min(from + batchBlocks - 1, bounds.high);
      const records = extractUserOperations(await storedBundles(db, params[0], from, to), unscanned);
      await insertRows(db, userOperationRows(records), { onConflict: userOperationsOnConflict });
      found += records.length;
    }
    logger.info({ entryPoints: addresses, found }, "user operations read from stored logs");
  }
  await recordStoredLogsScanned(db, entryPoints);
  return { found };
}

/** The transactions of blocks `from..to` with their stored logs of the given entry points. */
async function storedBundles(db: Database, addresses: string[], from: number, to: number) {
  const rows = await db.query<{
    hash: string;
    block_number: number;
    block_hash: string;
    index: number;
    from_address: string;
    to_address: string | null;
    input: string;
    inner_calls: { to: string; input: string }[] | null;
    address: string;
    log_index: number;
    topics: (string | null)[];
    data: string;
  }>(
    `SELECT '0x' || encode(t.hash, 'hex') AS hash, t.block_number, '0x' || encode(t.block_hash, 'hex') AS block_hash,
       t.index, '0x' || encode(t.from_address, 'hex') AS from_address,
       '0x' || encode(t.to_address, 'hex') AS to_address, '0x' || encode(t.input, 'hex') AS input,
       (SELECT json_agg(json_build_object('to', '0x' || encode(i.to_address, 'hex'), 'input', '0x' || encode(i.input, 'hex')))
        FROM internal_transactions i
        WHERE i.block_number = t.block_number AND i.transaction_index = t.index AND i.index > 0
          AND i.type = 'call' AND i.error IS NULL AND i.to_address = ANY($1::text[]::bytea[])) AS inner_calls,
       '0x' || encode(l.address, 'hex') AS address, l.log_index,
       array['0x' || encode(l.topic0, 'hex'), '0x' || encode(l.topic1, 'hex'),
             '0x' || encode(l.topic2, 'hex'), '0x' || encode(l.topic3, 'hex')] AS topics,
       '0x' || encode(l.data, 'hex') AS data
     FROM logs l JOIN transactions t ON t.hash = l.transaction_hash
     WHERE l.address = ANY($1::text[]::bytea[]) AND l.block_number BETWEEN $2 AND $3
     ORDER BY l.block_number, l.log_index`,
    [addresses, from, to],
  );
  const bundles = new Map<string, BundleTransaction>();
  for (const row of rows) {
    let bundle = bundles.get(row.hash);
    if (!bundle) {
      bundle = {
        hash: row.hash,
        blockNumber: row.block_number,
        blockHash: row.block_hash,
        index: row.index,
        from: row.from_address,
        to: row.to_address,
        input: row.input,
        innerCalls: row.inner_calls ?? [],
        logs: [],
      };
      bundles.set(row.hash, bundle);
    }
    bundle.logs.push({ address: row.address, topics: row.topics, data: row.data, logIndex: row.log_index });
  }
  return bundles.values();
}
