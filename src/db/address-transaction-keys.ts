import { Direction } from "./direction.ts";

/**
 * The keys of `address_transactions` (migration 027), its largest table: an address by its last 13 bytes
 * and a transaction by one 8-byte position. A B-tree entry's keys are aligned to 8 bytes, so the 13 bytes
 * (14 with their length) and the 2-byte direction fill 16, where the 20-byte address and the direction
 * took 24, and the position takes 8 where the block number and index took 16.
 *
 * Thirteen bytes do not identify an address alone: another address may end in the same ones (finding one
 * that ends like a given address takes about 2^104 tries, a pair of any two about 2^52). Such rows share
 * the key range, so a reader checks each row against its transaction ({@link addressTakesPartSql}).
 */

/** How many of an address's last bytes key it. */
export const addressSuffixBytes = 13;

/** A `0x` address's last {@link addressSuffixBytes} bytes, as `0x` hex. */
export function addressSuffix(address: string): string {
  return `0x${address.slice(-2 * addressSuffixBytes)}`;
}

/** SQL for the suffix of the 20-byte bytea `column` (substring counts from 1). */
export function addressSuffixSql(column: string): string {
  return `substring(${column} from ${21 - addressSuffixBytes})`;
}

/**
 * Bits of a position that hold the transaction's index in its block: a block of 2^24 transactions would
 * need over 350 billion gas at 21,000 each; the block number keeps 39 bits.
 */
const indexBits = 24;

/** The largest index a position holds; no transaction is at it or beyond. */
const maxIndex = (1 << indexBits) - 1;

/** The largest block number a position holds (2^39 - 1): the last bit of a `bigint` is its sign. */
const maxBlockNumber = 2 ** (63 - indexBits) - 1;

/** The position of the transaction at `index` in block `blockNumber`: both in one ordered integer. */
export function transactionPosition(blockNumber: number | bigint, index: number): bigint {
  return (BigInt(blockNumber) << BigInt(indexBits)) | BigInt(index);
}

/** SQL for {@link transactionPosition} of the `bigint` and `integer` expressions given. */
export function transactionPositionSql(blockNumber: string, index: string): string {
  return `((${blockNumber} << ${indexBits}) | ${index})`;
}

/** SQL for the block number and the index a position expression holds, as `bigint` and `integer`. */
export function positionPartsSql(position: string): { blockNumber: string; index: string } {
  return {
    blockNumber: `(${position} >> ${indexBits})`,
    index: `(${position} & ${maxIndex})::integer`,
  };
}

/**
 * The position a cursor resumes after: its block and index; a cursor without the index resumes past its
 * whole block, as a cursor of the block number alone did. A client may send any block number or index the
 * cursor's pattern allows: one past what a position holds stands beyond every transaction of its block (an
 * index) or of the chain (a block number), where its bits would have spilled into the block's.
 */
export function cursorPosition(
  blockNumber: number | null | undefined,
  index: number | null | undefined,
  order: "asc" | "desc",
): bigint | null {
  if (blockNumber == null) return null;
  if (blockNumber > maxBlockNumber) return transactionPosition(maxBlockNumber, maxIndex);
  return transactionPosition(blockNumber, Math.min(index ?? (order === "desc" ? 0 : maxIndex), maxIndex));
}

/**
 * SQL: whether the `address_transactions` row `row`, found by an address's suffix, is the address's
 * (`address`, a full 20-byte bytea expression): its transaction `transaction` names the address in the
 * first role the row's direction holds.
 */
export function addressTakesPartSql(row: string, transaction: string, address: string): string {
  return `CASE WHEN ${row}.direction & ${Direction.from} <> 0 THEN ${transaction}.from_address = ${address}
    WHEN ${row}.direction & ${Direction.to} <> 0 THEN ${transaction}.to_address = ${address}
    ELSE ${transaction}.created_contract = ${address} END`;
}
