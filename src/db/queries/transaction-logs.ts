import type { Queryable } from "../client.ts";
import { topicKeySql } from "../log-topic-keys.ts";
import { byteaLiteral, byteaParam, byteaText } from "../table-rows.ts";
import { createParameters, hexColumn } from "./keyset.ts";
import { rowsOfTransactions, type TransactionLogRange } from "./of-transactions.ts";
import { poolCreatedSql } from "./uniswap-v3-pools.ts";

/** A log as the decoders need it, keyed by its transaction's position. */
export type TransactionLogRow = {
  block_number: number;
  transaction_index: number;
  log_index: number;
  address: string;
  topics: string[];
  data: string;
};

/**
 * Logs with one of these first topics, from `emitter` when it is given, and with `topic1` as their second
 * topic (the event's first indexed argument) when that is given too.
 */
export type LogEvents = {
  topic0s: readonly string[];
  emitter?: string;
  topic1?: string;
  /**
   * Only from the pools this Uniswap v3 factory created (with no `emitter`): checked in the statement, not by
   * `matchesEvents`.
   */
  poolsOf?: string;
};

/** The log is of one of the events: the statement's filter, for a caller splitting what it was sent. */
export function matchesEvents(
  log: Pick<TransactionLogRow, "address" | "topics">,
  events: readonly LogEvents[],
): boolean {
  return events.some(
    ({ topic0s, emitter, topic1 }) =>
      topic0s.includes(log.topics[0] as string) &&
      (emitter === undefined || emitter === log.address) &&
      (topic1 === undefined || topic1 === log.topics[1]),
  );
}

export type ListTransactionLogsParameters = {
  transactions: readonly TransactionLogRange[];
  /** The events asked for: no other log leaves the database. */
  events: readonly LogEvents[];
};

/**
 * The logs of some transactions, in block and log order, with their topics as one array: one range of
 * log indexes per transaction (without them, a rare topic0 made the planner scan every log of the chain).
 * Those ranges are the plan whatever the values, so the statement keeps one plan for any values. Each kind
 * of event is read on its own, so that only its logs are (near enough): those of an emitter from that
 * emitter's indexes, those of any emitter by their topics, written into the statement, so that an index of
 * only those events (as `logs_uniswap_v3_pool_events`, migration 036) is seen to hold them. Read whole, a
 * page of transactions of 1,000 logs each read 50,000 logs to find none of the events.
 */
export async function listTransactionLogs(
  db: Queryable,
  { transactions, events }: ListTransactionLogsParameters,
): Promise<TransactionLogRow[]> {
  if (events.length === 0) return [];
  const { params, bind } = createParameters();
  const matching = events.flatMap(({ topic0s, emitter, topic1, poolsOf }) => {
    const anyEmitter = `l.topic0 IN (${topic0s.map(byteaLiteral).join(", ")})`;
    // Pools' events by their topics, each emitter checked against the factory's announcements here: other
    // contracts emit the same events (forks, spam), thousands in a transaction, which left the database.
    if (emitter === undefined && poolsOf !== undefined) {
      const announced = poolCreatedSql("p", bind(byteaParam(poolsOf)), "l.address");
      return [`${anyEmitter} AND EXISTS (SELECT FROM logs p WHERE ${announced})`];
    }
    if (emitter === undefined) return [anyEmitter];
    const address = bind(byteaParam(emitter));
    // With its first argument (a position manager's mints: Transfers from zero), a range of the emitter's
    // second-topic index per transaction, which holds only those: by its address, or its first topic, every
    // other transfer of the emitter in the transaction was read too (thousands, moving positions in bulk).
    if (topic1 !== undefined) {
      const literal = byteaLiteral(topic1);
      return [
        `l.address = ${address} AND ${topicKeySql("l.topic1")} = ${topicKeySql(literal)}
         AND l.topic1 = ${literal} AND ${anyEmitter}`,
      ];
    }
    // One transaction (a summary, whose emitter is the called contract, which may have emitted thousands of
    // logs in it): each topic a range of the emitter's first-topic index (040), which holds only the event.
    if (transactions.length === 1)
      return topic0s.map((topic) => {
        const literal = byteaLiteral(topic);
        return `l.address = ${address} AND ${topicKeySql("l.topic0")} = ${topicKeySql(literal)}
         AND l.topic0 = ${literal}`;
      });
    // A page's: the emitter's logs in each transaction (a protocol's contract, which emits a few more than
    // asked for), from its address's index, the topics checked on the row; a range for each topic would
    // cost a probe of the index per topic and transaction. The first-topic index holds them too, and a kept
    // plan costs both the same, but with no one topic to range over it walks the emitter's whole history.
    // `IS TRUE` filters the same rows and keeps that index out, since it tells nothing of a null topic.
    return [
      `l.address = ${address} AND (l.topic0 = ANY(${bind(topic0s.map(byteaText))}::text[]::bytea[])) IS TRUE`,
    ];
  });
  const logs = rowsOfTransactions("logs", "l", transactions, bind, { matching });
  if (logs === null) return [];
  const rows = await db.query<
    Omit<TransactionLogRow, "topics"> & Record<`topic${0 | 1 | 2 | 3}`, string | null>
  >(
    `SELECT l.block_number, l.transaction_index, l.log_index, ${hexColumn("l.address", "address")},
       ${hexColumn("l.topic0", "topic0")}, ${hexColumn("l.topic1", "topic1")}, ${hexColumn("l.topic2", "topic2")},
       ${hexColumn("l.topic3", "topic3")}, ${hexColumn("l.data", "data")}
     FROM ${logs}
     ORDER BY l.block_number, l.log_index`,
    params,
    { genericPlan: true },
  );
  return rows.map(({ topic0, topic1, topic2, topic3, ...log }) => ({
    ...log,
    topics: [topic0, topic1, topic2, topic3].filter((topic): topic is string => topic !== null),
  }));
}
