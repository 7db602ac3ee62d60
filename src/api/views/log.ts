import type { Abi } from "viem";
import type { LogRow } from "../../db/queries/address-logs.ts";
import type { FindAddressesReturnType } from "../../db/queries/addresses.ts";
import { decodeLog } from "../../decode/decode-log.ts";
import { timestamp } from "../format.ts";
import { renderAddress } from "./address.ts";

/** The addresses of a log that its rendering needs looked up. */
export function logAddresses(row: LogRow): string[] {
  return row.transaction_to === null ? [row.address] : [row.address, row.transaction_to];
}

/**
 * Renders a log as Blockscout's log view, with the emitter under both `address` and `address_hash`
 * (the superset rule) and always four topics, missing ones null; decoded with the emitter's imported ABI
 * (or its implementation's), else the built-in ones.
 */
export function renderLog(row: LogRow, addresses: FindAddressesReturnType, abi: Abi | null) {
  const emitter = renderAddress(row.address, addresses);
  return {
    address: emitter,
    address_hash: emitter,
    smart_contract: renderAddress(row.transaction_to, addresses),
    block_hash: row.block_hash,
    block_number: row.block_number,
    block_timestamp: timestamp(row.timestamp),
    transaction_hash: row.transaction_hash,
    index: row.log_index,
    data: row.data,
    topics: [row.topic0, row.topic1, row.topic2, row.topic3],
    decoded: decodeLog({ topics: [row.topic0, row.topic1, row.topic2, row.topic3], data: row.data, abi }),
  };
}
