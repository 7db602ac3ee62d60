import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Address,
  createPublicClient,
  encodeFunctionData,
  getContractAddress,
  type Hash,
  type Hex,
  hexToString,
  http,
  type Log,
  numberToHex,
  type PublicClient,
  parseAbi,
  parseEther,
  parseEventLogs,
  toEventSelector,
  zeroAddress,
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
    // Generous for a 2-core CI box; the scenario takes about 3.5 s here.
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
    expect(result.headBlockNumber - result.startBlockNumber).toBeLessThanOrEqual(450n);
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

  const transferTopic = toEventSelector("Transfer(address,address,uint256)");
  const erc20Abi = parseAbi([
    "event Transfer(address indexed from, address indexed to, uint256 value)",
    "event Approval(address indexed owner, address indexed spender, uint256 value)",
  ]);
  const erc721Abi = parseAbi([
    "event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)",
    "event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)",
    "event ApprovalForAll(address indexed owner, address indexed operator, bool approved)",
  ]);
  const erc1155Abi = parseAbi([
    "event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)",
    "event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)",
  ]);

  async function logsOf(hash: Hash, address: Address): Promise<Log[]> {
    const receipt = await client.getTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    return receipt.logs.filter((log) => log.address === address.toLowerCase());
  }

  /** Transfer logs of one emitter split by shape: ERC-20 (3 topics) and ERC-721 (4 topics). */
  function transferForms(logs: Log[]) {
    const transfers = logs.filter((log) => log.topics[0] === transferTopic);
    return {
      fungible: parseEventLogs({
        abi: erc20Abi,
        eventName: "Transfer",
        logs: transfers.filter((l) => l.topics.length === 3),
      }),
      nft: parseEventLogs({
        abi: erc721Abi,
        eventName: "Transfer",
        logs: transfers.filter((l) => l.topics.length === 4),
      }),
    };
  }

  test("ERC-20, ERC-721 and ERC-1155 burns are transfers to the zero address", async () => {
    const { contracts, examples } = result;
    const [tokenBurn] = transferForms(await logsOf(examples.tokenBurn, contracts.token)).fungible;
    expect(tokenBurn.args.to).toBe(zeroAddress);
    expect(tokenBurn.args.value).toBeGreaterThan(0n);
    const [tokenMint] = transferForms(await logsOf(examples.tokenMint, contracts.token)).fungible;
    expect(tokenMint.args.from).toBe(zeroAddress);

    const collectibleBurn = transferForms(await logsOf(examples.collectibleBurn, contracts.collectible)).nft;
    expect(collectibleBurn).toHaveLength(1);
    expect(collectibleBurn[0].args.to).toBe(zeroAddress);
    await expect(
      client.readContract({
        address: contracts.collectible,
        abi: parseAbi(["function ownerOf(uint256) view returns (address)"]),
        functionName: "ownerOf",
        args: [collectibleBurn[0].args.tokenId],
      }),
    ).rejects.toThrow();

    const single = parseEventLogs({
      abi: erc1155Abi,
      eventName: "TransferSingle",
      logs: await logsOf(examples.multiTokenBurn, contracts.multiToken),
    });
    expect(single).toHaveLength(1);
    expect(single[0].args.to).toBe(zeroAddress);
    const batch = parseEventLogs({
      abi: erc1155Abi,
      eventName: "TransferBatch",
      logs: await logsOf(examples.multiTokenBurnBatch, contracts.multiToken),
    });
    expect(batch).toHaveLength(1);
    expect(batch[0].args.to).toBe(zeroAddress);
    expect(batch[0].args.ids).toHaveLength(3);
  });

  test("ERC-20 approvals include a revocation to zero", async () => {
    const { contracts, examples } = result;
    const approval = parseEventLogs({
      abi: erc20Abi,
      eventName: "Approval",
      logs: await logsOf(examples.tokenApproval, contracts.token),
    });
    expect(approval.map((log) => log.args.value)).toEqual([parseEther("50")]);
    const revoked = parseEventLogs({
      abi: erc20Abi,
      eventName: "Approval",
      logs: await logsOf(examples.tokenApprovalRevoked, contracts.token),
    });
    expect(revoked.map((log) => log.args.value)).toEqual([0n]);
    expect(revoked[0].args.spender).not.toBe(zeroAddress);
  });

  test("ERC-1155 mints and transfers a batch of ten distinct ids in one transaction", async () => {
    const { contracts, examples } = result;
    for (const [hash, fromZero] of [
      [examples.multiTokenMintBatchOfTen, true],
      [examples.multiTokenBatchOfTen, false],
    ] as const) {
      const batches = parseEventLogs({
        abi: erc1155Abi,
        eventName: "TransferBatch",
        logs: await logsOf(hash, contracts.multiToken),
      });
      expect(batches).toHaveLength(1);
      const { ids, values, from, to } = batches[0].args;
      expect(ids).toHaveLength(10);
      expect(new Set(ids).size).toBe(10);
      expect(values).toHaveLength(10);
      expect(from === zeroAddress).toBe(fromZero);
      expect(to).not.toBe(zeroAddress);
    }
  });

  test("the hybrid emits the ERC-20 and the ERC-721 Transfer in one transaction", async () => {
    const { contracts, examples } = result;
    for (const hash of [examples.hybridTransfer, examples.hybridNftTransfer]) {
      const { fungible, nft } = transferForms(await logsOf(hash, contracts.hybrid));
      expect(fungible).toHaveLength(1);
      expect(nft).toHaveLength(1);
      expect(fungible[0].args.value).toBe(parseEther("1"));
      expect(nft[0].args.tokenId).toBeGreaterThan(2n ** 255n);
      expect([nft[0].args.from, nft[0].args.to]).toEqual([fungible[0].args.from, fungible[0].args.to]);
    }
    const approvals = await logsOf(examples.hybridNftApproval, contracts.hybrid);
    expect(approvals.map((log) => log.topics.length)).toEqual([4]);
    expect(parseEventLogs({ abi: erc721Abi, eventName: "Approval", logs: approvals })).toHaveLength(1);
    const forAll = await logsOf(examples.hybridApprovalForAll, contracts.hybrid);
    expect(
      parseEventLogs({ abi: erc721Abi, eventName: "ApprovalForAll", logs: forAll })[0].args.approved,
    ).toBe(true);
  });

  test("replaying the hybrid's logs gives its balances and NFT owners", async () => {
    const address = result.contracts.hybrid;
    const logs = await client.getLogs({
      address,
      fromBlock: result.startBlockNumber + 1n,
      toBlock: result.headBlockNumber,
    });
    const { fungible, nft } = transferForms(logs);
    const balances = new Map<Address, bigint>();
    for (const { args } of fungible) {
      balances.set(args.from, (balances.get(args.from) ?? 0n) - args.value);
      balances.set(args.to, (balances.get(args.to) ?? 0n) + args.value);
    }
    const owners = new Map<bigint, Address>();
    for (const { args } of nft) {
      if (args.from !== zeroAddress) expect(owners.get(args.tokenId)).toBe(args.from);
      owners.set(args.tokenId, args.to);
    }
    const burnt = [...owners.values()].filter((owner) => owner === zeroAddress).length;
    expect(burnt).toBeGreaterThan(0);
    expect(nft.length).toBeGreaterThan(owners.size);

    const abi = parseAbi([
      "function balanceOf(address) view returns (uint256)",
      "function erc721BalanceOf(address) view returns (uint256)",
      "function ownerOf(uint256) view returns (address)",
      "function totalSupply() view returns (uint256)",
    ]);
    const read = (functionName: "balanceOf" | "erc721BalanceOf", holder: Address) =>
      client.readContract({ address, abi, functionName, args: [holder] });
    for (const holder of result.accounts) {
      const balance = await read("balanceOf", holder);
      expect(balance).toBe(balances.get(holder) ?? 0n);
      const nftCount = [...owners.values()].filter((owner) => owner === holder).length;
      expect(await read("erc721BalanceOf", holder)).toBe(BigInt(nftCount));
      expect(BigInt(nftCount)).toBe(balance / parseEther("1"));
    }
    expect(await client.readContract({ address, abi, functionName: "totalSupply" })).toBe(
      -(balances.get(zeroAddress) ?? 0n),
    );
    await Promise.all(
      [...owners].map(async ([id, owner]) => {
        const ownerOf = client.readContract({ address, abi, functionName: "ownerOf", args: [id] });
        if (owner === zeroAddress) await expect(ownerOf).rejects.toThrow();
        else expect(await ownerOf).toBe(owner);
      }),
    );
  });

  test("the bytes32 token's name and symbol are bare bytes32 words", async () => {
    const { contracts, examples } = result;
    const abi = parseAbi([
      "function name() view returns (bytes32)",
      "function symbol() view returns (bytes32)",
    ]);
    const rawCall = async (functionName: "name" | "symbol") => {
      const { data } = await client.call({
        to: contracts.bytes32Token,
        data: encodeFunctionData({ abi, functionName }),
      });
      return data as Hex;
    };
    const name = await rawCall("name");
    expect(name).toHaveLength(2 + 64);
    expect(hexToString(name, { size: 32 })).toBe("Sextant Bytes32 Token");
    expect(hexToString(await rawCall("symbol"), { size: 32 })).toBe("SB32");
    await expect(
      client.readContract({
        address: contracts.bytes32Token,
        abi: parseAbi(["function name() view returns (string)"]),
        functionName: "name",
      }),
    ).rejects.toThrow();
    const { fungible } = transferForms(await logsOf(examples.bytes32TokenTransfer, contracts.bytes32Token));
    expect(fungible).toHaveLength(1);
  });

  test("the reverting-name token's name() reverts and symbol() does not decode, yet it transfers", async () => {
    const { contracts, examples } = result;
    const abi = parseAbi([
      "function name() view returns (string)",
      "function symbol() view returns (string)",
      "function decimals() view returns (uint8)",
    ]);
    await expect(
      client.call({
        to: contracts.revertingNameToken,
        data: encodeFunctionData({ abi, functionName: "name" }),
      }),
    ).rejects.toThrow(/revert/i);
    const { data: symbol } = await client.call({
      to: contracts.revertingNameToken,
      data: encodeFunctionData({ abi, functionName: "symbol" }),
    });
    expect(symbol).toHaveLength(2 + 64);
    await expect(
      client.readContract({ address: contracts.revertingNameToken, abi, functionName: "symbol" }),
    ).rejects.toThrow();
    expect(
      await client.readContract({ address: contracts.revertingNameToken, abi, functionName: "decimals" }),
    ).toBe(18);
    const { fungible } = transferForms(
      await logsOf(examples.revertingNameTokenTransfer, contracts.revertingNameToken),
    );
    expect(fungible).toHaveLength(1);
    expect(fungible[0].args.value).toBeGreaterThan(0n);
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
          "DemoHybrid",
          "DemoBytes32Token",
          "DemoRevertingNameToken",
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
