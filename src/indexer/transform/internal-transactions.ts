import { Direction } from "../../db/direction.ts";
import type { RangeRows } from "../../db/tables.ts";
import type { InternalTransaction } from "../map-traces.ts";
import type { Participation } from "./participation.ts";

export type TransformFramesParameters = {
  blockNumber: number;
  transactionIndex: number;
  frames: readonly InternalTransaction[];
  /** Position of the first frame among the block's frames. */
  firstBlockIndex: number;
};

/**
 * Adds a transaction's frames, each with one `address_internal_transactions` row per party, but the
 * top-level call: it repeats the transaction itself (endpoint 12 never lists it, and the transaction's
 * row holds its error). Each frame keeps its position among all the block's frames, that call included.
 */
export function transformFrames(
  rows: RangeRows,
  participation: Participation,
  { blockNumber, transactionIndex, frames, firstBlockIndex }: TransformFramesParameters,
): void {
  frames.forEach((frame, i) => {
    if (frame.index === 0 && frame.type === "call") return;
    rows.internalTransactions.push({
      block_number: blockNumber,
      transaction_index: transactionIndex,
      index: frame.index,
      block_index: firstBlockIndex + i,
      type: frame.type,
      from_address: frame.from,
      to_address: frame.to,
      created_contract: frame.createdContract,
      value: frame.value,
      gas: frame.gas,
      gas_used: frame.gasUsed,
      input: frame.input,
      output: frame.output,
      error: frame.error,
      trace_address: frame.traceAddress,
    });
    const parties = participation.parties(
      [
        [frame.from, Direction.from],
        [frame.to, Direction.to],
        [frame.createdContract, Direction.created],
      ],
      blockNumber,
    );
    for (const [address, direction] of parties) {
      rows.addressInternalTransactions.push({
        address,
        block_number: blockNumber,
        transaction_index: transactionIndex,
        index: frame.index,
        direction,
      });
    }
  });
}
