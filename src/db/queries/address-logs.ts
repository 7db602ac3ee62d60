import type { Queryable } from "../client.ts";
import { byteaParam } from "../table-rows.ts";
import { hexColumn, keysetCondition } from "./keyset.ts";

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

/** One page of the logs an address emitted, newest first, from the (address, block, index) index. */
export async function listAddressLogs(
  db: Queryable,
  { address, topic, cursor, limit }: ListAddressLogsParameters,
): Promise<LogRow[]> {
  const keyset = keysetCondition(
    ["l.block_number", "l.log_index"],
    [cursor.block_number, cursor.index],
    "desc",
    3,
  );
  const params: unknown[] = [byteaParam(address), limit, ...keyset.params];
  let topicCondition = "";
  if (topic) {
    params.push(byteaParam(topic));
    const p = `$${params.length}`;
    topicCondition = `AND (l.topic0 = ${p} OR l.topic1 = ${p} OR l.topic2 = ${p} OR l.topic3 = ${p})`;
  }
  return db.query<LogRow>(
    `SELECT l.block_number, l.log_index, ${hexColumn("l.block_hash", "block_hash")},
       ${hexColumn("l.transaction_hash", "transaction_hash")}, ${hexColumn("l.address", "address")},
       ${hexColumn("l.topic0", "topic0")}, ${hexColumn("l.topic1", "topic1")}, ${hexColumn("l.topic2", "topic2")},
       ${hexColumn("l.topic3", "topic3")}, ${hexColumn("l.data", "data")}, b.timestamp,
       ${hexColumn("t.to_address", "transaction_to")}
     FROM logs l
     JOIN blocks b ON b.number = l.block_number
     JOIN transactions t ON t.block_number = l.block_number AND t.index = l.transaction_index
     WHERE l.address = $1 AND ${keyset.sql} ${topicCondition}
     ORDER BY l.block_number DESC, l.log_index DESC
     LIMIT $2`,
    params,
  );
}
