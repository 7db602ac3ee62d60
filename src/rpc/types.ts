import type { Hex, RpcBlock, RpcLog, RpcTransaction, RpcTransactionReceipt } from "viem";

/** A block as nodes send it with full transaction objects (`eth_getBlockByNumber(n, true)`). */
export type RpcFullBlock = Omit<RpcBlock<"latest", true>, "transactions"> & {
  transactions: RpcTransaction[];
  withdrawals?: { index: Hex; validatorIndex: Hex; address: Hex; amount: Hex }[];
};

/**
 * A receipt as nodes send it. Fields are typed loosely where real nodes disagree: anvil sends
 * `blockTimestamp` as a decimal number.
 */
export type RpcReceipt = Omit<RpcTransactionReceipt, "logs"> & {
  logs: RpcLog[];
  blockTimestamp?: Hex | number;
  blobGasUsed?: Hex;
  blobGasPrice?: Hex;
  root?: Hex;
};

export function toHexQuantity(value: bigint | number): Hex {
  return `0x${value.toString(16)}`;
}
