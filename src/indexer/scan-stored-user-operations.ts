import type { Database } from "../db/client.ts";
import { createRangeRows, insertTable } from "../db/tables.ts";
import { readEntryPointLogBounds, readStoredBundles } from "../db/user-operation-bundles.ts";
import { recordEntryPointsConfigured, recordStoredLogsScanned } from "../db/user-operations-status.ts";
import type { Logger } from "../logger.ts";
import { type EntryPoints, extractUserOperations, pushUserOperationRows } from "./user-operations.ts";

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
    const { low, high } = await readEntryPointLogBounds(db, addresses);
    for (let from = low; from !== null && high !== null && from <= high; from += batchBlocks) {
      const to = Math.min(from + batchBlocks - 1, high);
      const records = extractUserOperations(await readStoredBundles(db, addresses, from, to), unscanned);
      const rows = createRangeRows();
      pushUserOperationRows(rows, records);
      await insertTable(db, "userOperations", rows.userOperations);
      found += records.length;
    }
    logger.info({ entryPoints: addresses, found }, "user operations read from stored logs");
  }
  await recordStoredLogsScanned(db, entryPoints);
  return { found };
}
