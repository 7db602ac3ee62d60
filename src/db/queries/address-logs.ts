import type { Queryable } from "../client.ts";
import { topicKeySql } from "../log-topic-keys.ts";
import { byteaParam } from "../table-rows.ts";
import { hexColumn, keysetCondition, limitSql, rangeOfOne } from "./keyset.ts";

export type ListAddressLogsParameters = {
  address: string;
  /** A 32-byte topic matched at any position. */
  topic?: string;
  cursor: { block_number?: number | null; index?: number | null };
  limit: number;
};

export type LogRow = {
  block_number: number;
  log_index: number;
  block_hash: string;
  transaction_hash: string;
  address: string;
  topic0: string | null;
  topic1: string | null;
  topic2: string | null;
  topic3: string | null;
  data: string;
  timestamp: number;
  transaction_to: string | null;
};

/**
 * One page of the logs an address emitted, newest first, from the (address, block, index) index, or
 * with `topic` from the per-position topic indexes: a range scan whatever the matches' age.
 *
 * The plan is kept for any values (a generic plan): planning it again at every page took longer than running
 * it, and no plan reads more than the page. Without a topic, the address is a range of one value
 * (`rangeOfOne`): as an equality, a plan kept for any address walked every log of the chain from the newest
 * for an address with one old log (0.8 s at 10 M transactions; docs/performance.md, "Generic plans, statement
 * by statement"), and one planned with the address's values walked every log older than the cursor for an
 * address busy only in recent blocks. With a topic, each position's index range holds only the address's logs
 * with that topic. The limit is written in (`limitSql`).
 */
export async function listAddressLogs(
  db: Queryable,
  { address, topic, cursor, limit }: ListAddressLogsParameters,
): Promise<LogRow[]> {
  const keyset = keysetCondition(
    ["l.block_number", "l.log_index"],
    [cursor.block_number, cursor.index],
    "desc",
    2,
  );
  const params: unknown[] = [byteaParam(address), ...keyset.params];
  const pageOrder = "l.block_number DESC, l.log_index DESC";
  const pageLimit = limitSql(limit);
  let source = "logs l";
  // The address's own index range, however common the planner takes the address to be.
  let condition = `${rangeOfOne("l.address", "$1")} AND ${keyset.sql}`;
  let order = `l.address DESC, ${pageOrder}`;
  if (topic) {
    const p = `$${params.push(byteaParam(topic))}`;
    // One index per position, keyed by a digest of the topic: each position gives its newest matches in
    // order, and a log matching at two positions is kept once.
    const positions = [0, 1, 2, 3].map(
      (n) => `(SELECT l.block_number, l.log_index FROM logs l
         WHERE l.address = $1 AND ${keyset.sql}
           AND ${topicKeySql(`l.topic${n}`)} = ${topicKeySql(`${p}::bytea`)} AND l.topic${n} = ${p}
         ORDER BY ${pageOrder} LIMIT ${pageLimit})`,
    );
    source = `(${positions.join(" UNION ")}) m JOIN logs l ON l.block_number = m.block_number AND l.log_index = m.log_index`;
    condition = "TRUE";
    order = pageOrder;
  }
  return db.query<LogRow>(
    `SELECT l.block_number, l.log_index, ${hexColumn("b.hash", "block_hash")},
       ${hexColumn("t.hash", "transaction_hash")}, ${hexColumn("l.address", "address")},
       ${hexColumn("l.topic0", "topic0")}, ${hexColumn("l.topic1", "topic1")}, ${hexColumn("l.topic2", "topic2")},
       ${hexColumn("l.topic3", "topic3")}, ${hexColumn("l.data", "data")}, b.timestamp,
       ${hexColumn("t.to_address", "transaction_to")}
     FROM ${source}
     JOIN blocks b ON b.number = l.block_number
     JOIN transactions t ON t.block_number = l.block_number AND t.index = l.transaction_index
     WHERE ${condition}
     ORDER BY ${order}
     LIMIT ${pageLimit}`,
    params,
    { genericPlan: true, orderedScans: true },
  );
}
