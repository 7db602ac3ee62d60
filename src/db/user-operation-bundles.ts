import type { Database } from "./client.ts";
import { byteaText } from "./table-rows.ts";

/** A log as both the node and the `logs` table give it. */
export type BundleLog = {
  address: string;
  topics: readonly (string | null)[];
  data: string;
  logIndex: number;
};

/**
 * A transaction that emitted EntryPoint logs, with what is needed to read its operations, from the node
 * (the indexer) or from the stored rows (the backfill of entry points configured later).
 */
export type BundleTransaction = {
  hash: string;
  blockNumber: number;
  blockHash: string;
  index: number;
  from: string;
  to: string | null;
  input: string;
  /**
   * Inner calls (from the trace) that reached a configured entry point: a bundle relayed by another
   * contract carries its `handleOps` input there. Empty without traces.
   */
  innerCalls: { to: string; input: string }[];
  logs: BundleLog[];
};

/** The lowest and highest block with a stored log of `entryPoints`; nulls when there is none. */
export async function readEntryPointLogBounds(
  db: Database,
  entryPoints: readonly string[],
): Promise<{ low: number | null; high: number | null }> {
  const [bounds] = await db.query<{ low: number | null; high: number | null }>(
    `SELECT min(block_number) AS low, max(block_number) AS high FROM logs
     WHERE address = ANY($1::text[]::bytea[])`,
    [entryPoints.map((address) => byteaText(address.toLowerCase()))],
  );
  return bounds ?? { low: null, high: null };
}

/** The stored transactions of blocks `from..to` that carry logs of `entryPoints`, with those logs. */
export async function readStoredBundles(
  db: Database,
  entryPoints: readonly string[],
  from: number,
  to: number,
): Promise<BundleTransaction[]> {
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
    `SELECT '0x' || encode(t.hash, 'hex') AS hash, t.block_number, '0x' || encode(b.hash, 'hex') AS block_hash,
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
     FROM logs l JOIN transactions t ON t.block_number = l.block_number AND t.index = l.transaction_index
       JOIN blocks b ON b.number = l.block_number
     WHERE l.address = ANY($1::text[]::bytea[]) AND l.block_number BETWEEN $2 AND $3
     ORDER BY l.block_number, l.log_index`,
    [entryPoints.map((address) => byteaText(address.toLowerCase())), from, to],
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
  return [...bundles.values()];
}
