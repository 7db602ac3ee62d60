import type { Address } from "viem";
import { byteaText, createTableRows } from "../db/table-rows.ts";
import type { FetchedRange } from "./fetch-range.ts";
import { transferKey } from "./token-candidates.ts";
import {
  bundleTransactionsOf,
  type EntryPoints,
  extractUserOperations,
  userOperationRows,
} from "./user-operations.ts";

export type RangeRows = ReturnType<typeof transformRange>;

const Direction = { from: 1, to: 2, created: 4 } as const;
const gweiInWei = 1_000_000_000n;

export type TransformRangeOptions = {
  /** ERC-4337 entry points whose user operations become rows; none when omitted. */
  entryPoints?: EntryPoints;
};

/**
 * Turns a validated range into the column-wise rows of each table. Quantities become decimal strings,
 * hashes the text form of bytea; nothing here talks to the node or the database.
 */
export function transformRange(range: FetchedRange, { entryPoints }: TransformRangeOptions = {}) {
  const { blocks, receipts, internalTransactions, contracts } = range;
  const blockRows = createTableRows("blocks", {
    number: "int8",
    hash: "bytea",
    parent_hash: "bytea",
    timestamp: "int8",
    miner: "bytea",
    gas_limit: "numeric",
    gas_used: "numeric",
    base_fee_per_gas: "numeric",
    difficulty: "numeric",
    total_difficulty: "numeric",
    size: "int8",
    nonce: "bytea",
    extra_data: "bytea",
    mix_hash: "bytea",
    sha3_uncles: "bytea",
    state_root: "bytea",
    transactions_root: "bytea",
    receipts_root: "bytea",
    logs_bloom: "bytea",
    blob_gas_used: "numeric",
    excess_blob_gas: "numeric",
    parent_beacon_block_root: "bytea",
    withdrawals_root: "bytea",
    transaction_count: "int4",
    traced: "bool",
  });
  const transactionRows = createTableRows("transactions", {
    hash: "bytea",
    block_number: "int8",
    block_hash: "bytea",
    index: "int4",
    from_address: "bytea",
    to_address: "bytea",
    created_contract: "bytea",
    value: "numeric",
    nonce: "int8",
    type: "int2",
    gas_limit: "numeric",
    gas_price: "numeric",
    max_fee_per_gas: "numeric",
    max_priority_fee_per_gas: "numeric",
    max_fee_per_blob_gas: "numeric",
    blob_versioned_hashes: "bytea",
    input: "bytea",
    v: "numeric",
    r: "numeric",
    s: "numeric",
    y_parity: "int2",
    chain_id: "int8",
    status: "int2",
    gas_used: "numeric",
    cumulative_gas_used: "numeric",
    effective_gas_price: "numeric",
    blob_gas_used: "numeric",
    blob_gas_price: "numeric",
    logs_bloom: "bytea",
    root: "bytea",
    error: "text",
    has_error_in_internal_transactions: "bool",
    revert_output: "bytea",
  });
  const addressTransactionRows = createTableRows("address_transactions", {
    address: "bytea",
    block_number: "int8",
    transaction_index: "int4",
    direction: "int2",
    value: "numeric",
    fee: "numeric",
  });
  const logRows = createTableRows("logs", {
    block_number: "int8",
    log_index: "int4",
    block_hash: "bytea",
    transaction_hash: "bytea",
    transaction_index: "int4",
    address: "bytea",
    topic0: "bytea",
    topic1: "bytea",
    topic2: "bytea",
    topic3: "bytea",
    data: "bytea",
  });
  const internalRows = createTableRows("internal_transactions", {
    block_number: "int8",
    transaction_index: "int4",
    index: "int4",
    block_index: "int4",
    transaction_hash: "bytea",
    type: "text",
    from_address: "bytea",
    to_address: "bytea",
    created_contract: "bytea",
    value: "numeric",
    gas: "numeric",
    gas_used: "numeric",
    input: "bytea",
    output: "bytea",
    error: "text",
    trace_address: "int4[]",
  });
  const addressInternalRows = createTableRows("address_internal_transactions", {
    address: "bytea",
    block_number: "int8",
    transaction_index: "int4",
    index: "int4",
    direction: "int2",
  });
  const tokenTransferRows = createTableRows("token_transfers", {
    block_number: "int8",
    log_index: "int4",
    transaction_hash: "bytea",
    transaction_index: "int4",
    token_address: "bytea",
    from_address: "bytea",
    to_address: "bytea",
    token_type: "text",
    token_ids: "numeric[]",
    amounts: "numeric[]",
    // The token's type (tokens.type), settled by writeRange once the range's tokens are stored.
    token_contract_type: "text",
  });
  const addressTokenTransferRows = createTableRows("address_token_transfers", {
    address: "bytea",
    block_number: "int8",
    log_index: "int4",
    direction: "int2",
    token_contract_type: "text",
  });
  let malformedTokenTransfers = 0;
  // Filled by attachTokens once name, symbol, decimals and supply are read from the node.
  const tokenRows = createTableRows("tokens", {
    address: "bytea",
    type: "text",
    name: "text",
    symbol: "text",
    decimals: "int2",
    total_supply: "numeric",
    first_seen_block: "int8",
    read_at_block: "int8",
  });
  const tokenInstanceRows = createTableRows("token_instances", {
    token_address: "bytea",
    token_id: "numeric",
    first_seen_block: "int8",
  });
  const instancesSeen = new Set<string>();
  const withdrawalRows = createTableRows("withdrawals", {
    index: "int8",
    block_number: "int8",
    validator_index: "int8",
    address: "bytea",
    amount: "numeric",
  });
  const addressRows = createTableRows("addresses", {
    hash: "bytea",
    is_contract: "bool",
    first_seen_block: "int8",
  });
  const proxyRows = createTableRows("proxies", {
    address: "bytea",
    block_number: "int8",
    proxy_type: "text",
    implementation: "bytea",
    beacon: "bytea",
  });
  for (const proxy of range.proxies) {
    proxyRows.push({
      address: byteaText(proxy.address),
      block_number: proxy.blockNumber.toString(),
      proxy_type: proxy.proxyType,
      implementation: byteaText(proxy.implementation),
      beacon: byteaText(proxy.beacon),
    });
  }
  const seen = new Set<string>();
  const see = (address: string | null | undefined, blockNumber: number) => {
    if (!address) return;
    const lower = address.toLowerCase() as Address;
    if (seen.has(lower)) return;
    seen.add(lower);
    addressRows.push({
      hash: byteaText(lower),
      is_contract: contracts.has(lower),
      first_seen_block: blockNumber,
    });
  };

  blocks.forEach((block, b) => {
    const number = Number(block.number);
    blockRows.push({
      number,
      hash: byteaText(block.hash),
      parent_hash: byteaText(block.parentHash),
      timestamp: Number(block.timestamp),
      miner: byteaText(block.miner),
      gas_limit: decimal(block.gasLimit),
      gas_used: decimal(block.gasUsed),
      base_fee_per_gas: decimal(block.baseFeePerGas),
      difficulty: decimal(block.difficulty),
      total_difficulty: decimal(block.totalDifficulty),
      size: block.size == null ? null : Number(block.size),
      nonce: byteaText(block.nonce),
      extra_data: byteaText(block.extraData),
      mix_hash: byteaText(block.mixHash),
      sha3_uncles: byteaText(block.sha3Uncles),
      state_root: byteaText(block.stateRoot),
      transactions_root: byteaText(block.transactionsRoot),
      receipts_root: byteaText(block.receiptsRoot),
      logs_bloom: byteaText(block.logsBloom),
      blob_gas_used: decimal(block.blobGasUsed),
      excess_blob_gas: decimal(block.excessBlobGas),
      parent_beacon_block_root: byteaText(block.parentBeaconBlockRoot),
      withdrawals_root: byteaText(block.withdrawalsRoot),
      transaction_count: block.transactions.length,
      traced: internalTransactions !== null,
    });
    let blockIndex = 0;
    see(block.miner, number);
    for (const withdrawal of block.withdrawals ?? []) {
      withdrawalRows.push({
        index: BigInt(withdrawal.index).toString(),
        block_number: number,
        validator_index: BigInt(withdrawal.validatorIndex).toString(),
        address: byteaText(withdrawal.address.toLowerCase()),
        amount: (BigInt(withdrawal.amount) * gweiInWei).toString(),
      });
      see(withdrawal.address, number);
    }

    block.transactions.forEach((transaction, t) => {
      const receipt = receipts[b][t];
      const tx = transaction as typeof transaction & Record<string, string | undefined>;
      const created = transaction.to ? null : (receipt.contractAddress ?? null);
      const effectiveGasPrice = receipt.effectiveGasPrice ?? transaction.gasPrice;
      const fee = effectiveGasPrice ? BigInt(receipt.gasUsed) * BigInt(effectiveGasPrice) : 0n;
      const value = decimal(transaction.value);
      const frames = internalTransactions?.[b][t] ?? null;
      transactionRows.push({
        hash: byteaText(transaction.hash),
        block_number: number,
        block_hash: byteaText(block.hash),
        index: t,
        from_address: byteaText(transaction.from),
        to_address: byteaText(transaction.to),
        created_contract: byteaText(created),
        value,
        nonce: Number(transaction.nonce),
        type: Number(transaction.type ?? "0x0"),
        gas_limit: decimal(transaction.gas),
        gas_price: decimal(transaction.gasPrice),
        max_fee_per_gas: decimal(tx.maxFeePerGas),
        max_priority_fee_per_gas: decimal(tx.maxPriorityFeePerGas),
        max_fee_per_blob_gas: decimal(tx.maxFeePerBlobGas),
        blob_versioned_hashes: blobHashes(transaction),
        input: byteaText(transaction.input),
        v: decimal(transaction.v),
        r: decimal(transaction.r),
        s: decimal(transaction.s),
        y_parity: tx.yParity == null ? null : Number(tx.yParity),
        chain_id: tx.chainId == null ? null : Number(tx.chainId),
        status: receipt.status == null ? null : Number(receipt.status),
        gas_used: decimal(receipt.gasUsed),
        cumulative_gas_used: decimal(receipt.cumulativeGasUsed),
        effective_gas_price: decimal(receipt.effectiveGasPrice),
        blob_gas_used: decimal(receipt.blobGasUsed),
        blob_gas_price: decimal(receipt.blobGasPrice),
        logs_bloom: byteaText(receipt.logsBloom),
        root: byteaText(receipt.root),
        error: frames?.[0]?.error ?? null,
        // Unknown (null) without a trace.
        has_error_in_internal_transactions:
          frames?.some((frame) => frame.index > 0 && frame.error !== null) ?? null,
        revert_output: byteaText(frames?.[0]?.revertOutput),
      });

      for (const frame of frames ?? []) {
        internalRows.push({
          block_number: number,
          transaction_index: t,
          index: frame.index,
          block_index: blockIndex++,
          transaction_hash: byteaText(transaction.hash),
          type: frame.type,
          from_address: byteaText(frame.from),
          to_address: byteaText(frame.to),
          created_contract: byteaText(frame.createdContract),
          value: frame.value.toString(),
          gas: frame.gas?.toString() ?? null,
          gas_used: frame.gasUsed?.toString() ?? null,
          input: byteaText(frame.input),
          output: byteaText(frame.output),
          error: frame.error,
          trace_address: `{${frame.traceAddress.join(",")}}`,
        });
        // The top-level call repeats the transaction itself; endpoint 12 never lists it.
        if (frame.index === 0 && frame.type === "call") continue;
        const directions = new Map<string, number>();
        const link = (address: string | null, bit: number) => {
          if (!address) return;
          directions.set(address, (directions.get(address) ?? 0) | bit);
          see(address, number);
        };
        link(frame.from, Direction.from);
        link(frame.to, Direction.to);
        link(frame.createdContract, Direction.created);
        for (const [address, direction] of directions) {
          addressInternalRows.push({
            address: byteaText(address),
            block_number: number,
            transaction_index: t,
            index: frame.index,
            direction,
          });
        }
      }

      const participants = new Map<string, number>();
      const take = (address: string | null | undefined, bit: number) => {
        if (!address) return;
        const lower = address.toLowerCase();
        participants.set(lower, (participants.get(lower) ?? 0) | bit);
        see(lower, number);
      };
      take(transaction.from, Direction.from);
      take(transaction.to, Direction.to);
      take(created, Direction.created);
      for (const [address, direction] of participants) {
        addressTransactionRows.push({
          address: byteaText(address),
          block_number: number,
          transaction_index: t,
          direction,
          value,
          fee: fee.toString(),
        });
      }

      for (const log of receipt.logs) {
        const topics = log.topics as string[];
        logRows.push({
          block_number: number,
          log_index: Number(log.logIndex),
          block_hash: byteaText(block.hash),
          transaction_hash: byteaText(transaction.hash),
          transaction_index: t,
          address: byteaText(log.address),
          topic0: byteaText(topics[0]),
          topic1: byteaText(topics[1]),
          topic2: byteaText(topics[2]),
          topic3: byteaText(topics[3]),
          data: byteaText(log.data),
        });
        see(log.address, number);
        const transfer = range.tokenTransfers.get(transferKey(number, Number(log.logIndex))) ?? null;
        if (transfer === "malformed") malformedTokenTransfers++;
        if (transfer === null || transfer === "malformed") continue;
        tokenTransferRows.push({
          block_number: number,
          log_index: Number(log.logIndex),
          transaction_hash: byteaText(transaction.hash),
          transaction_index: t,
          token_address: byteaText(transfer.token),
          from_address: byteaText(transfer.from),
          to_address: byteaText(transfer.to),
          token_type: transfer.type,
          token_ids: `{${transfer.tokenIds.join(",")}}`,
          amounts: `{${transfer.amounts.join(",")}}`,
          token_contract_type: null,
        });
        see(transfer.from, number);
        see(transfer.to, number);
        if (transfer.type !== "ERC-20") {
          for (const id of transfer.tokenIds) {
            const key = `${transfer.token}/${id}`;
            if (instancesSeen.has(key)) continue;
            instancesSeen.add(key);
            tokenInstanceRows.push({
              token_address: byteaText(transfer.token),
              token_id: id.toString(),
              first_seen_block: number,
            });
          }
        }
        const direction = transfer.from === transfer.to ? Direction.from | Direction.to : null;
        for (const [address, bit] of direction
          ? [[transfer.from, direction] as const]
          : ([
              [transfer.from, Direction.from],
              [transfer.to, Direction.to],
            ] as const)) {
          addressTokenTransferRows.push({
            address: byteaText(address),
            block_number: number,
            log_index: Number(log.logIndex),
            direction: bit,
            token_contract_type: null,
          });
        }
      }
    });
  });

  return {
    blocks: blockRows,
    transactions: transactionRows,
    addressTransactions: addressTransactionRows,
    logs: logRows,
    internalTransactions: internalRows,
    addressInternalTransactions: addressInternalRows,
    withdrawals: withdrawalRows,
    tokenTransfers: tokenTransferRows,
    tokens: tokenRows,
    tokenCandidates: range.tokenCandidates,
    tokenReadings: range.tokenReadings,
    tokenInstances: tokenInstanceRows,
    addressTokenTransfers: addressTokenTransferRows,
    addresses: addressRows,
    userOperations: userOperationRows(
      entryPoints ? extractUserOperations(bundleTransactionsOf(range, entryPoints), entryPoints) : [],
    ),
    proxies: proxyRows,
    /** Logs that looked like token transfers but did not fit any transfer layout; skipped. */
    malformedTokenTransfers,
  };
}

/** A hex quantity as decimal digits, null when absent. */
function decimal(hex: string | null | undefined): string | null {
  return hex == null ? null : BigInt(hex).toString();
}

function blobHashes(transaction: { blobVersionedHashes?: readonly string[] }): string | null {
  const hashes = transaction.blobVersionedHashes;
  return hashes?.length ? `\\x${hashes.map((hash) => hash.slice(2)).join("")}` : null;
}
