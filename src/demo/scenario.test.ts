import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Address,
  createPublicClient,
  getContractAddress,
  type Hash,
  type Hex,
  http,
  numberToHex,
  type PublicClient,
  parseAbi,
} from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Anvil, startAnvil } from "./anvil.ts";
import { compileDemoContracts } from "./compile.ts";
import { create2Salt, runScenario, type ScenarioResult } from "./scenario.ts";

const timeout = 120_000;

type RpcBlock = { number: Hex; transactions: { hash: Hash; type: Hex }[] };
type RpcReceipt = { transactionHash: Hash; status: Hex };
type ParityTrace = {
  type: "call" | "create" | "suicide" | "reward";
  action: { creationMethod?: string; address?: Address };
  traceAddress: number[];
  transactionHash: Hash;
  error?: string;
};

describe("demo scenario on anvil", () => {
  let anvil: Anvil;
  let result: ScenarioResult;
  let client: PublicClient;
  let blocks: RpcBlock[];
  let receipts: RpcReceipt[];
  let traces: ParityTrace[];

  async function rpc<result>(method: string, params: unknown[]): Promise<result> {
    return (await client.request({ method: method as never, params: params as never })) as result;
  }

  async function forEachScenarioBlock<result>(
    read: (blockNumber: Hex) => Promise<result>,
  ): Promise<result[]> {
    const numbers: Hex[] = [];
    for (let block = result.startBlockNumber + 1n; block <= result.headBlockNumber; block++) {
      numbers.push(numberToHex(block));
    }
    return Promise.all(numbers.map(read));
  }

  beforeAll(async () => {
    anvil = await startAnvil();
    client = createPublicClient({ transport: http(anvil.rpcUrl) });
    const startedAt = performance.now();
    result = await runScenario({ rpcUrl: anvil.rpcUrl });
    // Generous for a 2-core CI box; the scenario takes about 2.5 s here.
    expect(performance.now() - startedAt).toBeLessThan(30_000);

    blocks = await forEachScenarioBlock((number) => rpc("eth_getBlockByNumber", [number, true]));
    receipts = (
      await forEachScenarioBlock((number) => rpc<RpcReceipt[]>("eth_getBlockReceipts", [number]))
    ).flat();
    traces = (await forEachScenarioBlock((number) => rpc<ParityTrace[]>("trace_block", [number]))).flat();
  }, timeout);

  afterAll(async () => {
    await anvil?.stop();
  }, timeout);

  test("mines a few hundred blocks holding every transaction it sent", () => {
    expect(result.headBlockNumber - result.startBlockNumber).toBeGreaterThanOrEqual(250n);
    expect(result.headBlockNumber - result.startBlockNumber).toBeLessThanOrEqual(400n);
    expect(receipts).toHaveLength(result.transactionCount);
    const transactionCounts = blocks.map((block) => block.transactions.length);
    expect(Math.max(...transactionCounts)).toBeGreaterThanOrEqual(3);
    expect(transactionCounts).toContain(1);
    expect(transactionCounts).toContain(0);
  });

  test("failed transactions are exactly the intended ones", () => {
    const failed = receipts
      .filter((receipt) => receipt.status === "0x0")
      .map((receipt) => receipt.transactionHash);
    expect(failed.length).toBeGreaterThan(0);
    expect(receipts.some((receipt) => receipt.status === "0x1")).toBe(true);
    expect(failed.sort()).toEqual([...result.failedTransactionHashes].sort());
  });

  test("legacy, access-list and EIP-1559 transactions all appear", () => {
    const types = new Set(
      blocks.flatMap((block) => block.transactions.map((transaction) => transaction.type)),
    );
    expect([...types].sort()).toEqual(["0x0", "0x1", "0x2"]);
  });

  test("the CREATE2 child lives at the address predicted from its salt", async () => {
    const artifacts = await compileDemoContracts();
    const predicted = getContractAddress({
      opcode: "CREATE2",
      from: result.contracts.playground,
      salt: create2Salt(0),
      bytecode: artifacts.Child.bytecode,
    });
    expect(predicted).toBe(result.contracts.create2Child);
    expect(await client.getCode({ address: predicted })).toMatch(/^0x[0-9a-f]{2,}$/);
  });

  test("traces show CREATE2, selfdestruct, nested calls and a caught inner revert", async () => {
    expect(traces.some((trace) => trace.type === "create" && trace.action.creationMethod === "create2")).toBe(
      true,
    );
    expect(traces.some((trace) => trace.type === "create" && trace.action.creationMethod === "create")).toBe(
      true,
    );
    expect(traces.some((trace) => trace.traceAddress.length >= 2 && trace.type === "call")).toBe(true);

    const selfdestruct = traces.find((trace) => trace.type === "suicide");
    expect(selfdestruct).toBeDefined();
    // Cancun: a contract destroyed in the transaction that created it is gone.
    const destroyed = await client.getCode({ address: selfdestruct?.action.address as Address });
    expect(destroyed ?? "0x").toBe("0x");

    const successful = new Set(
      receipts.filter((receipt) => receipt.status === "0x1").map((r) => r.transactionHash),
    );
    const caught = traces.filter((trace) => trace.traceAddress.length > 0 && trace.error !== undefined);
    expect(caught.some((trace) => successful.has(trace.transactionHash))).toBe(true);
  });

  test("collectibles carry data: JSON metadata with an inline image", async () => {
    const tokenUri = await client.readContract({
      address: result.contracts.collectible,
      abi: parseAbi(["function tokenURI(uint256) view returns (string)"]),
      functionName: "tokenURI",
      args: [1n],
    });
    expect(tokenUri.startsWith("data:application/json")).toBe(true);
    const metadata = JSON.parse(Buffer.from(tokenUri.split(",")[1], "base64").toString("utf8"));
    expect(metadata.name).toContain("#1");
    expect(metadata.image).toMatch(/^data:image\/svg\+xml;base64,/);
  });

  test("the EIP-1967 proxy points at the implementation and holds the counter", async () => {
    // bytes32(uint256(keccak256("eip1967.proxy.implementation")) - 1)
    const implementationSlot = "0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc";
    const slot = await client.getStorageAt({ address: result.contracts.proxy, slot: implementationSlot });
    expect(`0x${slot?.slice(-40)}`).toBe(result.contracts.implementation.toLowerCase());
    const value = await client.readContract({
      address: result.contracts.proxy,
      abi: parseAbi(["function value() view returns (uint256)"]),
      functionName: "value",
    });
    expect(value).toBeGreaterThan(0n);
  });
});

describe("compileDemoContracts", () => {
  let cacheDirectory: string;

  beforeAll(async () => {
    cacheDirectory = await mkdtemp(join(tmpdir(), "sextant-solc-"));
  });

  afterAll(async () => {
    await rm(cacheDirectory, { recursive: true, force: true });
  });

  test(
    "compiles once, then serves identical artifacts from the disk cache",
    async () => {
      const compiled = await compileDemoContracts({ cacheDirectory });
      expect(Object.keys(compiled)).toEqual(
        expect.arrayContaining([
          "DemoToken",
          "DemoCollectible",
          "DemoMultiToken",
          "CounterV1",
          "CounterProxy",
        ]),
      );
      expect(compiled.Playground.bytecode).toMatch(/^0x[0-9a-f]+$/);
      expect(await readdir(cacheDirectory)).toHaveLength(1);

      const startedAt = performance.now();
      const cached = await compileDemoContracts({ cacheDirectory });
      // Compiling takes seconds; reading the cache file takes milliseconds.
      expect(performance.now() - startedAt).toBeLessThan(500);
      expect(cached).toEqual(compiled);
    },
    timeout,
  );
});
