import { decodeEventLog, encodeFunctionData, type Hex, parseAbi, toEventSelector, zeroAddress } from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { addressSuffix, positionPartsSql } from "../src/db/address-transaction-keys.ts";
import { Direction } from "../src/db/direction.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { eth_call } from "../src/rpc/eth_call.ts";
import { eth_getBlockByNumber } from "../src/rpc/eth_getBlockByNumber.ts";
import { eth_getBlockReceipts } from "../src/rpc/eth_getBlockReceipts.ts";
import { eth_getCode } from "../src/rpc/eth_getCode.ts";
import { trace_block } from "../src/rpc/trace_block.ts";
import type { RpcFullBlock, RpcReceipt } from "../src/rpc/types.ts";
import {
  addressLinkMismatches,
  chainMismatches,
  expectBlocksMatch,
  expectLogsMatch,
  expectTransactionsMatch,
} from "./support/compare-with-node.ts";
import { databaseKinds, type TestDatabase } from "./support/databases.ts";
import { at, only } from "./support/elements.ts";
import { indexNode } from "./support/index-node.ts";
import { tokenBalanceMismatches } from "./support/token-ledger.ts";

describe.each(databaseKinds)("indexing the demo chain into %s", (kind) => {
  const client = createRpcClient({ url: inject("demoRpcUrl") });
  let test: TestDatabase;
  let head: bigint;
  let blocks: RpcFullBlock[];
  let receipts: RpcReceipt[][];

  beforeAll(async () => {
    // Small ranges and several in flight, so the pipeline's ordering is exercised.
    const indexed = await indexNode(kind, client, { rangeSize: 7, concurrency: 3 });
    test = indexed.test;
    head = indexed.head as bigint;
    const numbers = Array.from({ length: Number(head) + 1 }, (_, i) => BigInt(i));
    blocks = (await eth_getBlockByNumber(client, { blocks: numbers })) as RpcFullBlock[];
    receipts = (await eth_getBlockReceipts(client, { blocks: numbers })) as RpcReceipt[][];
  });
  afterAll(() => test?.drop());

  it("indexes the whole scenario", () => {
    expect(Number(head)).toBeGreaterThanOrEqual(250);
    expect(blocks.flatMap((block) => block.transactions).length).toBeGreaterThan(250);
  });

  it("stores every block field as the node answers it", async () => {
    await expectBlocksMatch(test.db, blocks);
  });

  it("stores every transaction and receipt field as the node answers it", async () => {
    const rows = await expectTransactionsMatch(test.db, blocks, receipts);
    expect(new Set(rows.map((row) => row.status))).toEqual(new Set(["0", "1"]));
    expect(rows.some((row) => row.type === "0") && rows.some((row) => row.type === "2")).toBe(true);
  });

  it("stores every log as the node answers it", async () => {
    const rows = await expectLogsMatch(test.db, receipts);
    expect(rows.length).toBeGreaterThan(100);
  });

  it("compares the chain window by window, finding a changed field, a lost log, a changed frame, a lost transfer and rows above the head", async () => {
    const whole = await chainMismatches(test.db, client, head, { window: 16n });
    const [stored] = await test.db.query<{ frames: number; transfers: number }>(
      `SELECT (SELECT count(*)::int FROM internal_transactions) AS frames,
         (SELECT count(*)::int FROM token_transfers) AS transfers`,
    );
    expect(whole).toEqual({
      compared: {
        blocks: blocks.length,
        transactions: blocks.flatMap((block) => block.transactions).length,
        logs: receipts.flat().flatMap((receipt) => receipt.logs).length,
        withdrawals: blocks.flatMap((block) => block.withdrawals ?? []).length,
        frames: stored?.frames,
        tokenTransfers: stored?.transfers,
      },
      mismatches: [],
    });
    expect(whole.compared.frames).toBeGreaterThan(0);
    expect(whole.compared.tokenTransfers).toBeGreaterThan(0);
    const transaction = at(
      blocks.flatMap((block) => block.transactions),
      -1,
    );
    const log = at(
      receipts.flat().flatMap((receipt) => receipt.logs),
      0,
    );
    // Cut below the last transaction's block: the stored rows above it are rows the node does not have.
    const cut = BigInt(transaction.blockNumber as Hex) - 1n;
    const rolledBack = new Error("rolled back");
    const found = test.db.transaction(async (tx) => {
      await tx.query("UPDATE transactions SET gas_used = gas_used + 1 WHERE hash = $1::text::bytea", [
        `\\x${transaction.hash.slice(2)}`,
      ]);
      await tx.query("DELETE FROM logs WHERE block_number = $1 AND log_index = $2", [
        Number(log.blockNumber),
        Number(log.logIndex),
      ]);
      // The newest frame given another value, and the newest token transfer lost.
      const [frame] = await tx.query<{ key: string }>(
        `UPDATE internal_transactions SET value = value + 1
         WHERE (block_number, transaction_index, index) =
           (SELECT block_number, transaction_index, index FROM internal_transactions
            ORDER BY block_number DESC, transaction_index DESC, index DESC LIMIT 1)
         RETURNING concat_ws(':', block_number, transaction_index, index) AS key`,
      );
      const [transfer] = await tx.query<{ key: string }>(
        `DELETE FROM token_transfers WHERE (block_number, log_index) =
           (SELECT block_number, log_index FROM token_transfers ORDER BY block_number DESC, log_index DESC LIMIT 1)
         RETURNING concat_ws(':', block_number, log_index) AS key`,
      );
      const { mismatches } = await chainMismatches(tx, client, cut, { window: 16n });
      expect(mismatches).toContainEqual(
        expect.objectContaining({ where: `log ${Number(log.blockNumber)}:${Number(log.logIndex)}` }),
      );
      expect(mismatches).toContainEqual({
        where: `above block ${cut}`,
        field: "transactions",
        stored: blocks.filter((block) => BigInt(block.number) > cut).flatMap((block) => block.transactions)
          .length,
        expected: 0,
      });
      const { mismatches: atHead } = await chainMismatches(tx, client, head, { window: 16n });
      expect(atHead).toContainEqual(
        expect.objectContaining({ where: `transaction ${transaction.hash}`, field: "gasUsed" }),
      );
      expect(atHead).toContainEqual(
        expect.objectContaining({ where: `frame ${frame?.key}`, field: "value" }),
      );
      expect(atHead).toContainEqual({
        where: `token transfer ${transfer?.key}`,
        field: "row",
        stored: null,
        expected: "answered",
      });
      throw rolledBack;
    });
    await expect(found).rejects.toBe(rolledBack);
    expect((await chainMismatches(test.db, client, head, { window: 64n })).mismatches).toEqual([]);
  });

  it("holds each address link as the transaction, frame or transfer it indexes gives it", async () => {
    expect(await addressLinkMismatches(test.db)).toEqual([]);
    const rolledBack = new Error("rolled back");
    const found = test.db.transaction(async (tx) => {
      const [link] = await tx.query<{ key: string }>(
        `DELETE FROM address_token_transfers WHERE (block_number, log_index) =
           (SELECT block_number, log_index FROM token_transfers ORDER BY block_number DESC, log_index DESC LIMIT 1)
           AND direction = ${Direction.to}
         RETURNING concat_ws('/', address, direction, block_number, log_index) AS key`,
      );
      await tx.query(
        `UPDATE address_transactions SET fee = fee + 1
         WHERE position = (SELECT max(position) FROM address_transactions) AND direction = ${Direction.from}`,
      );
      const mismatches = await addressLinkMismatches(tx);
      expect(mismatches).toHaveLength(2);
      expect(mismatches).toContainEqual(
        expect.objectContaining({ where: `address_token_transfers ${link?.key}`, stored: null }),
      );
      expect(mismatches).toContainEqual(
        expect.objectContaining({ where: expect.stringMatching(/^address_transactions /) }),
      );
      throw rolledBack;
    });
    await expect(found).rejects.toBe(rolledBack);
  });

  it("decodes every token transfer log as viem decodes it, a batch staying one row", async () => {
    const events = parseAbi([
      "event Transfer(address indexed from, address indexed to, uint256 value)",
      "event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)",
      "event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)",
      // WETH9's wrap and unwrap: a mint to `dst` and a burn from `src`.
      "event Deposit(address indexed dst, uint256 wad)",
      "event Withdrawal(address indexed src, uint256 wad)",
    ]);
    const expected: string[] = [];
    for (const log of receipts.flat().flatMap((receipt) => receipt.logs)) {
      let decoded: ReturnType<typeof decodeEventLog<typeof events>>;
      try {
        decoded = decodeEventLog({
          abi: events,
          topics: log.topics as [Hex, ...Hex[]],
          data: log.data,
          strict: true,
        });
      } catch {
        // ERC-721's Transfer has the id indexed: the three-topic ABI above does not fit it.
        if (log.topics.length !== 4 || log.topics[0] !== toEventSelector("Transfer(address,address,uint256)"))
          continue;
        expected.push(
          [
            log.blockNumber,
            log.logIndex,
            "ERC-721",
            `0x${log.topics[1]?.slice(26)}`,
            `0x${log.topics[2]?.slice(26)}`,
            BigInt(log.topics[3] as Hex),
            "",
          ].join("/"),
        );
        continue;
      }
      const { args, eventName } = decoded as { eventName: string; args: Record<string, unknown> };
      const ids =
        eventName === "TransferSingle"
          ? [args.id]
          : eventName === "TransferBatch"
            ? (args.ids as bigint[])
            : [];
      const amounts =
        eventName === "Transfer" || eventName === "TransferSingle"
          ? [args.value]
          : eventName === "Deposit" || eventName === "Withdrawal"
            ? [args.wad]
            : (args.values as bigint[]);
      const type = eventName === "TransferSingle" || eventName === "TransferBatch" ? "ERC-1155" : "ERC-20";
      const from = eventName === "Deposit" ? zeroAddress : (args.from ?? args.src);
      const to = eventName === "Withdrawal" ? zeroAddress : (args.to ?? args.dst);
      expected.push(
        [
          log.blockNumber,
          log.logIndex,
          type,
          String(from).toLowerCase(),
          String(to).toLowerCase(),
          ids.join(","),
          amounts.join(","),
        ].join("/"),
      );
    }
    const rows = await test.db.query<{ key: string }>(
      `SELECT concat_ws('/', '0x' || to_hex(block_number), '0x' || to_hex(log_index), token_type, '0x' || encode(from_address, 'hex'),
         '0x' || encode(to_address, 'hex'), array_to_string(token_ids, ','), array_to_string(amounts, ',')) AS key
       FROM token_transfers ORDER BY block_number, log_index`,
    );
    expect(rows.map((row) => row.key)).toEqual(expected);
    expect(
      expected.some((key) => key.includes("/ERC-1155/") && at(key.split("/"), 5).split(",").length > 1),
    ).toBe(true);
    expect(new Set(expected.map((key) => key.split("/")[2]))).toEqual(
      new Set(["ERC-20", "ERC-721", "ERC-1155"]),
    );
  });

  it("holds every balance a transfer moved as the node's balanceOf and ownerOf answer it at the head", async () => {
    const abi = parseAbi(["function totalSupply() view returns (uint256)"]);
    const balances = await tokenBalanceMismatches(test.db, client, head);
    expect(balances.mismatches).toEqual([]);
    expect(Object.keys(balances.byType).sort()).toEqual(["ERC-1155", "ERC-20", "ERC-404", "ERC-721"]);
    const call = async (to: Hex, data: Hex) => {
      const [answer] = await eth_call(client, { calls: [{ to, data }], block: { number: head } });
      return answer;
    };
    // Every ERC-721 id that exists at the head has exactly one stored holder.
    const owners = only(
      await test.db.query<{ unowned: number }>(
        `SELECT count(*)::int AS unowned FROM token_instances i JOIN tokens t ON t.address = i.token_address
         WHERE t.type = 'ERC-721' AND (SELECT count(*) FROM token_balances b
           WHERE b.token_address = i.token_address AND b.token_id = i.token_id AND b.value > 0) > 1`,
      ),
    );
    expect(owners.unowned).toBe(0);
    const tokens = await test.db.query<{ address: Hex; total_supply: string | null; type: string }>(
      "SELECT '0x' || encode(address, 'hex') AS address, total_supply::text, type FROM tokens WHERE type = 'ERC-20'",
    );
    for (const token of tokens) {
      const supply = await call(token.address, encodeFunctionData({ abi, functionName: "totalSupply" }));
      expect(token.total_supply, token.address).toBe(
        typeof supply === "string" ? BigInt(supply).toString() : null,
      );
    }
  });

  it("links each transaction to its sender, recipient and created contract", async () => {
    const position = positionPartsSql("position");
    const rows = await test.db.query<{
      address_suffix: string;
      block_number: number;
      transaction_index: number;
      direction: number;
    }>(
      `SELECT '0x' || encode(address_suffix, 'hex') AS address_suffix, ${position.blockNumber}::integer AS block_number,
         ${position.index} AS transaction_index, direction
       FROM address_transactions`,
    );
    const expected = new Map<string, number>();
    blocks.forEach((block) => {
      const blockReceipts = at(receipts, Number(block.number));
      block.transactions.forEach((transaction, t) => {
        const receipt = at(blockReceipts, t);
        const add = (address: string | null | undefined, bit: number) => {
          if (!address) return;
          const key = `${addressSuffix(address.toLowerCase())}/${Number(block.number)}/${t}`;
          expected.set(key, (expected.get(key) ?? 0) | bit);
        };
        add(transaction.from, Direction.from);
        add(transaction.to, Direction.to);
        if (!transaction.to) add(receipt.contractAddress, Direction.created);
      });
    });
    const stored = new Map(
      rows.map((row) => [
        `${row.address_suffix}/${row.block_number}/${row.transaction_index}`,
        row.direction,
      ]),
    );
    expect(stored).toEqual(expected);
  });

  it("knows every address seen and which of them hold code", async () => {
    // Topic position of `from` (then `to`) in ERC-20/721 `Transfer` and ERC-1155 `TransferSingle`/`TransferBatch`.
    const transferParties = new Map<Hex, number>([
      [toEventSelector("Transfer(address,address,uint256)"), 1],
      [toEventSelector("TransferSingle(address,address,address,uint256,uint256)"), 2],
      [toEventSelector("TransferBatch(address,address,address,uint256[],uint256[])"), 2],
    ]);
    const rows = await test.db.query<{ hash: string; is_contract: boolean }>(
      `SELECT '0x' || encode(hash, 'hex') AS hash, is_contract FROM addresses`,
    );
    const seen = new Set<string>();
    blocks.forEach((block, b) => {
      seen.add(block.miner.toLowerCase());
      for (const transaction of block.transactions) {
        seen.add(transaction.from.toLowerCase());
        if (transaction.to) seen.add(transaction.to.toLowerCase());
      }
      for (const receipt of at(receipts, b)) {
        if (receipt.contractAddress && !receipt.to) seen.add(receipt.contractAddress.toLowerCase());
        for (const log of receipt.logs) {
          seen.add(log.address.toLowerCase());
          // The sender and recipient of a token transfer, which may take part in nothing else (the
          // demo mints to addresses no key controls).
          const parties = transferParties.get(log.topics[0] as Hex);
          for (const topic of parties === undefined ? [] : log.topics.slice(parties, parties + 2))
            seen.add(`0x${topic.slice(26)}`);
        }
      }
    });
    // Addresses that only take part inside transactions come from the node's traces.
    const traces = await trace_block(client, {
      blocks: blocks.map((block) => BigInt(block.number as string)),
    });
    for (const trace of traces.flat()) {
      for (const address of [
        trace.action.from,
        trace.action.to,
        trace.action.address,
        trace.action.refundAddress,
        trace.result?.address,
      ]) {
        if (address) seen.add(address.toLowerCase());
      }
    }
    expect(new Set(rows.map((row) => row.hash))).toEqual(seen);
    const codes = await eth_getCode(client, {
      addresses: rows.map((row) => row.hash as `0x${string}`),
      block: { number: head },
    });
    rows.forEach((row, i) => {
      // Code at the head means a contract; a contract may have destroyed itself since, so not the reverse.
      if (codes[i] !== "0x") expect(row.is_contract, row.hash).toBe(true);
    });
    expect(rows.filter((row) => row.is_contract).length).toBeGreaterThanOrEqual(6);
  });
});
