import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import {
  type AbiFunction,
  type Address,
  createPublicClient,
  decodeFunctionData,
  erc20Abi,
  formatEther,
  formatUnits,
  getAddress,
  type Hash,
  http,
  type PublicClient,
  parseAbiItem,
} from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createApiServer } from "../src/api/server.ts";
import { writeContractAbi } from "../src/db/import-abis.ts";
import type { RevertReason } from "../src/decode/revert-reason.ts";
import { required } from "../src/required.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { databaseKinds } from "./support/databases.ts";
import { demoArtifact } from "./support/demo-artifact.ts";
import { type IndexedChain, indexIntoNewDatabase } from "./support/indexed-chain.ts";

type Variable = { type: string; value: unknown };
type Summary = { summary_template: string; summary_template_variables: Record<string, Variable> };
type ListedTransaction = {
  hash: string;
  method: string | null;
  decoded_input: {
    method_id: string;
    method_call: string;
    parameters: { name: string; type: string; value: unknown }[];
  } | null;
  actions: { protocol: string; type: string; data: Record<string, unknown> }[];
  revert_reason: RevertReason | null;
};

/**
 * Issue 5 end to end on the demo chain: decoded inputs and logs, protocol actions and summaries, each
 * compared with what the scenario sent (read back from the node, or from the amounts it recorded).
 */
describe.each(databaseKinds)("understanding transactions on %s", (kind) => {
  const scenario = JSON.parse(inject("demoScenario"));
  const { contracts, examples, protocolAmounts: amounts } = scenario;
  const node: PublicClient = createPublicClient({ transport: http(inject("demoRpcUrl")) });
  let indexed: IndexedChain;
  let app: FastifyInstance;
  const tokens = new Map<string, { symbol: string; decimals: number }>();

  beforeAll(async () => {
    indexed = await indexIntoNewDatabase(kind, createRpcClient({ url: inject("demoRpcUrl") }), {
      head: BigInt(scenario.headBlockNumber),
      api: {
        protocols: {
          uniswapV3Factory: contracts.uniswapV3Factory.toLowerCase(),
          uniswapV3PositionManager: contracts.uniswapV3PositionManager.toLowerCase(),
          aaveV3Pool: contracts.aavePool.toLowerCase(),
        },
      },
    });
    app = indexed.app;
    for (const token of [contracts.token, contracts.secondToken, contracts.weth] as Address[]) {
      const [symbol, decimals] = await Promise.all([
        node.readContract({ address: token, abi: erc20Abi, functionName: "symbol" }),
        node.readContract({ address: token, abi: erc20Abi, functionName: "decimals" }),
      ]);
      tokens.set(token.toLowerCase(), { symbol, decimals });
    }
  });

  afterAll(async () => {
    await indexed?.close();
  });

  /** `amount` of `token` in whole units, with the token's symbol, as a sentence shows it. */
  function units(amount: string | bigint, token: string): string {
    const { symbol, decimals } = tokens.get(token.toLowerCase()) as { symbol: string; decimals: number };
    return `${formatUnits(BigInt(amount), decimals)} ${symbol}`;
  }

  /** The summaries of a transaction as sentences: tokens by symbol, addresses by hash. */
  async function sentences(hash: Hash): Promise<string[]> {
    const response = await app.inject(`/api/v2/transactions/${hash}/summary`);
    expect(response.statusCode).toBe(200);
    const body: { success: boolean; data: { summaries: Summary[] } } = response.json();
    expect(body.success).toBe(true);
    return body.data.summaries.map(({ summary_template, summary_template_variables }) =>
      summary_template.replace(/\{(\w+)\}/g, (_, name: string) => {
        const variable = required(summary_template_variables[name], `${name} of "${summary_template}"`);
        expect(variable.value, `${name} of "${summary_template}"`).not.toBeNull();
        if (variable.type === "token") return (variable.value as { symbol: string }).symbol;
        if (variable.type === "address") return (variable.value as { hash: string }).hash;
        return String(variable.value);
      }),
    );
  }

  /** One transaction as endpoint 2 lists it for `address`. */
  async function listed(address: string, hash: Hash): Promise<ListedTransaction> {
    let params: Record<string, unknown> | null = {};
    while (params) {
      const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
      const body: { items: ListedTransaction[]; next_page_params: Record<string, unknown> | null } = (
        await app.inject(`/api/v2/addresses/${address}/transactions?${query}`)
      ).json();
      const found = body.items.find((item) => item.hash === hash);
      if (found) return found;
      params = body.next_page_params;
    }
    throw new Error(`${hash} is not listed for ${address}`);
  }

  const { token0, token1 } = amounts.uniswap;

  it("decodes a token transfer's input with the values that were sent", async () => {
    const sent = await node.getTransaction({ hash: examples.tokenTransfer });
    const call = decodeFunctionData({ abi: erc20Abi, data: sent.input });
    const item = await listed(contracts.token, examples.tokenTransfer);
    expect(item.method).toBe("transfer");
    expect(item.decoded_input?.method_id).toBe(sent.input.slice(2, 10));
    expect(item.decoded_input?.method_call).toMatch(/^transfer\(address \w+, uint256 \w+\)$/);
    expect(item.decoded_input?.parameters.map(({ type, value }) => [type, value])).toEqual([
      ["address", (call.args as [Address, bigint])[0]],
      ["uint256", String((call.args as [Address, bigint])[1])],
    ]);
  });

  it("decodes the pool's Swap log with the amounts that moved", async () => {
    const receipt = await node.getTransactionReceipt({ hash: examples.uniswapSwap });
    const swapLog = receipt.logs.find(
      (log) => log.address.toLowerCase() === contracts.uniswapV3Pool.toLowerCase(),
    ) as {
      logIndex: number;
    };
    const body: {
      items: {
        transaction_hash: string;
        index: number;
        decoded: {
          method_call: string;
          parameters: { name: string; value: string; indexed: boolean }[];
        } | null;
      }[];
    } = (await app.inject(`/api/v2/addresses/${contracts.uniswapV3Pool}/logs`)).json();
    const item = body.items.find(
      (log) => log.transaction_hash === examples.uniswapSwap && log.index === swapLog.logIndex,
    );
    expect(item?.decoded?.method_call).toBe(
      "Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)",
    );
    const values = Object.fromEntries(
      (item?.decoded?.parameters ?? []).map(({ name, value }) => [name, value]),
    );
    expect(values.amount0).toBe(String(amounts.uniswap.swap.amountIn));
    expect(values.amount1).toBe(`-${amounts.uniswap.swap.amountOut}`);
  });

  it("lists Uniswap and Aave actions with the amounts moved, scaled by decimals", async () => {
    const swap = await listed(contracts.uniswapCallee, examples.uniswapSwap);
    expect(swap.actions).toEqual([
      {
        protocol: "uniswap_v3",
        type: "swap",
        data: {
          amount0: formatUnits(
            BigInt(amounts.uniswap.swap.amountIn),
            tokens.get(token0.toLowerCase())?.decimals ?? 0,
          ),
          symbol0: tokens.get(token0.toLowerCase())?.symbol,
          address0: token0,
          amount1: formatUnits(
            BigInt(amounts.uniswap.swap.amountOut),
            tokens.get(token1.toLowerCase())?.decimals ?? 0,
          ),
          symbol1: tokens.get(token1.toLowerCase())?.symbol,
          address1: token1,
          block_number: Number(
            (await node.getTransactionReceipt({ hash: examples.uniswapSwap })).blockNumber,
          ),
        },
      },
    ]);
    const liquidation = await listed(contracts.aavePool, examples.aaveLiquidation);
    expect(
      liquidation.actions.map(({ protocol, type, data }) => [
        protocol,
        type,
        data.debt_amount,
        data.debt_symbol,
        data.collateral_amount,
        data.collateral_symbol,
      ]),
    ).toEqual([
      [
        "aave_v3",
        "liquidation_call",
        ...units(amounts.aave.liquidationDebt, contracts.secondToken).split(" "),
        ...units(amounts.aave.liquidationCollateral, contracts.token).split(" "),
      ],
    ]);
  });

  it("summarizes protocol transactions by their actions", async () => {
    const { uniswap, aave } = amounts;
    const pair = (a0: string, a1: string) => `${units(a0, token0)} and ${units(a1, token1)}`;
    expect(await sentences(examples.uniswapSwap)).toEqual([
      `Swap ${units(uniswap.swap.amountIn, token0)} for ${units(uniswap.swap.amountOut, token1)} on Uniswap V3`,
    ]);
    expect(await sentences(examples.uniswapSwapBack)).toEqual([
      `Swap ${units(uniswap.swapBack.amountIn, token1)} for ${units(uniswap.swapBack.amountOut, token0)} on Uniswap V3`,
    ]);
    expect(await sentences(examples.uniswapMint)).toEqual([
      `Add liquidity ${pair(uniswap.mint.amount0, uniswap.mint.amount1)} to Uniswap V3`,
    ]);
    expect(await sentences(examples.uniswapBurn)).toEqual([
      `Remove liquidity ${pair(uniswap.burn.amount0, uniswap.burn.amount1)} from Uniswap V3`,
    ]);
    expect(await sentences(examples.uniswapCollect)).toEqual([
      `Collect ${pair(uniswap.collect.amount0, uniswap.collect.amount1)} from Uniswap V3`,
    ]);
    const position = await sentences(examples.uniswapMintPosition);
    expect(position).toContain(
      `Add liquidity ${pair(uniswap.position.amount0, uniswap.position.amount1)} to Uniswap V3`,
    );
    expect(
      position.some(
        (sentence) =>
          sentence.startsWith("Mint position ") && sentence.includes(`#${uniswap.position.tokenId} to `),
      ),
    ).toBe(true);

    expect(await sentences(examples.aaveSupply)).toEqual([
      `Supply ${units(aave.supply, contracts.token)} to Aave V3`,
    ]);
    expect(await sentences(examples.aaveWithdraw)).toEqual([
      `Withdraw ${units(aave.withdraw, contracts.token)} from Aave V3`,
    ]);
    expect(await sentences(examples.aaveBorrow)).toEqual([
      `Borrow ${units(aave.borrow, contracts.secondToken)} from Aave V3`,
    ]);
    expect(await sentences(examples.aaveRepay)).toEqual([
      `Repay ${units(aave.repay, contracts.secondToken)} to Aave V3`,
    ]);
    expect(await sentences(examples.aaveFlashLoan)).toEqual([
      `Flash loan ${units(aave.flashLoan, contracts.token)} from Aave V3`,
    ]);
    expect(await sentences(examples.aaveLiquidation)).toEqual([
      `Liquidate ${units(aave.liquidationDebt, contracts.secondToken)} of debt for ${units(aave.liquidationCollateral, contracts.token)} on Aave V3`,
    ]);
    for (const hash of [examples.aaveEnableCollateral, examples.aaveDisableCollateral]) {
      expect(await sentences(hash)).toEqual([
        expect.stringMatching(/^(Enable|Disable) S\w+ as collateral on Aave V3$/),
      ]);
    }
    // The demo's WETH only wraps and unwraps: its Deposit, a mint, makes it a known token, named by its symbol.
    const { symbol: weth } = tokens.get(contracts.weth.toLowerCase()) as { symbol: string };
    expect(await sentences(examples.wrap)).toEqual([
      `Wrap ${formatEther(BigInt(amounts.wrap))} ETH into ${weth}`,
    ]);
    expect(await sentences(examples.unwrap)).toEqual([
      `Unwrap ${formatEther(BigInt(amounts.unwrap))} ${weth} into ETH`,
    ]);
  });

  it("summarizes transfers, mints, burns, approvals and creations with the amounts sent", async () => {
    const tokenCall = async (hash: Hash) => {
      const sent = await node.getTransaction({ hash });
      return { sent, call: decodeFunctionData({ abi: erc20Abi, data: sent.input }) };
    };
    const { sent: transfer, call } = await tokenCall(examples.tokenTransfer);
    const [to, value] = call.args as [Address, bigint];
    expect(await sentences(examples.tokenTransfer)).toEqual([
      `Transfer ${units(value, contracts.token)} from ${getAddress(transfer.from)} to ${to}`,
    ]);
    const DemoToken = await demoArtifact("DemoToken");
    const minted = await node.getTransaction({ hash: examples.tokenMint });
    const [mintedTo, mintedAmount] = decodeFunctionData({ abi: DemoToken.abi, data: minted.input }).args as [
      Address,
      bigint,
    ];
    expect(await sentences(examples.tokenMint)).toEqual([
      `Mint ${units(mintedAmount, contracts.token)} to ${mintedTo}`,
    ]);
    const burnt = await node.getTransaction({ hash: examples.tokenBurn });
    const [burntAmount] = decodeFunctionData({ abi: DemoToken.abi, data: burnt.input }).args as [bigint];
    expect(await sentences(examples.tokenBurn)).toEqual([
      `Burn ${units(burntAmount, contracts.token)} from ${getAddress(burnt.from)}`,
    ]);
    // The token's own standard names the parameter (an ERC-721 burn has the same selector).
    expect((await listed(contracts.token, examples.tokenBurn)).decoded_input?.method_call).toBe(
      "burn(uint256 value)",
    );
    // An upgrade through the proxy decodes with OpenZeppelin's UUPS interface and is told as the call it is.
    expect((await listed(contracts.proxy, examples.proxyUpgrade)).method).toBe("upgradeToAndCall");
    expect(await sentences(examples.proxyUpgrade)).toEqual([
      `Called upgradeToAndCall on ${getAddress(contracts.proxy)}`,
    ]);
    const { call: approval } = await tokenCall(examples.tokenApproval);
    const [spender, allowance] = approval.args as [Address, bigint];
    expect(await sentences(examples.tokenApproval)).toEqual([
      `Approve ${spender} to spend ${units(allowance, contracts.token)}`,
    ]);
    const { call: revocation } = await tokenCall(examples.tokenApprovalRevoked);
    expect(await sentences(examples.tokenApprovalRevoked)).toEqual([
      `Revoke approval of ${(revocation.args as [Address])[0]} for SDT`,
    ]);
    const valueTransfer = await node.getTransaction({ hash: examples.valueTransfer });
    expect(await sentences(examples.valueTransfer)).toEqual([
      `Transfer ${formatEther(valueTransfer.value)} ETH to ${getAddress(valueTransfer.to as Address)}`,
    ]);
    expect(await sentences(examples.contractCreation)).toEqual([
      expect.stringMatching(/^Deploy (contract|token SDT at) 0x[0-9a-fA-F]{40}$/),
    ]);
    // The clone is created by the factory's inner call, not by the transaction itself.
    expect(await sentences(examples.cloneCreation)).toEqual([
      `Deploy contract ${getAddress(contracts.clone)}`,
    ]);
  });

  it("summarizes an ERC-4337 bundle with each of its user operations", async () => {
    const [first, second] = scenario.userOperations.examples.v07.bundle;
    expect(await sentences(first.transactionHash)).toEqual([
      `Bundle 2 user operations through ${first.entryPoint}`,
      `Executed user operation ${first.userOpHash} of ${first.sender}`,
      `Executed user operation ${second.userOpHash} of ${second.sender}`,
      // The first operation's account is created on the way (by the EntryPoint's sender creator).
      `Deploy contract ${first.sender}`,
    ]);
    const reverted = scenario.userOperations.examples.v06.reverted;
    expect(await sentences(reverted.transactionHash)).toContain(
      `Failed user operation ${reverted.userOpHash} of ${reverted.sender}`,
    );
  });

  it("gives a failed transaction no summary but its decoded revert reason, and an unknown one a 404", async () => {
    const failed = await app.inject(`/api/v2/transactions/${examples.failedWithReason}/summary`);
    expect(failed.statusCode).toBe(200);
    expect(failed.body).toBe("null");
    expect((await listed(contracts.playground, examples.failedWithReason)).revert_reason).toEqual({
      method_id: "08c379a0",
      method_call: "Error(string reason)",
      parameters: [{ name: "reason", type: "string", value: "Playground: requested failure" }],
    });
    // Blockscout's just_request_body is accepted; the summary itself is the answer.
    const swap = `/api/v2/transactions/${examples.uniswapSwap}/summary`;
    const plain = await app.inject(swap);
    const withSwitch = await app.inject(`${swap}?just_request_body=true`);
    expect(withSwitch.statusCode).toBe(200);
    expect(withSwitch.json()).toEqual(plain.json());
    expect((await app.inject(`${swap}?just_request_body=maybe`)).statusCode).toBe(422);
    const unknown = await app.inject(`/api/v2/transactions/0x${"ab".repeat(32)}/summary`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ message: "Not found" });
    const malformed = await app.inject("/api/v2/transactions/0x1234/summary");
    expect(malformed.statusCode).toBe(422);
    expect(malformed.json().errors[0].source.pointer).toBe("/transaction_hash_param");
  });

  it("decodes the Aave pool call with the amounts sent, from the built-in Aave v3 ABI", async () => {
    const item = await listed(contracts.aavePool, examples.aaveSupply);
    expect(item.method).toBe("supply");
    expect(item.decoded_input?.method_call).toBe(
      "supply(address asset, uint256 amount, address onBehalfOf, uint16 referralCode)",
    );
    const values = Object.fromEntries(
      (item.decoded_input?.parameters ?? []).map(({ name, value }) => [name, value]),
    );
    expect(values.asset).toBe(getAddress(contracts.token));
    expect(values.amount).toBe(String(amounts.aave.supply));
  });

  it("decodes with an imported ABI: names, methods and custom errors of the contract itself", async () => {
    const Playground = await demoArtifact("Playground");
    await writeContractAbi(indexed.test.db, {
      address: contracts.playground.toLowerCase(),
      name: "Playground",
      abi: Playground.abi,
      source: "abi",
      file: "Playground.json",
    });
    const failed = await listed(contracts.playground, examples.failedWithCustomError);
    const sent = await node.getTransaction({ hash: examples.failedWithCustomError });
    const code = BigInt(`0x${sent.input.slice(10)}`);
    expect(failed.method).toBe("failWithCustomError");
    expect(failed.decoded_input?.method_call).toBe("failWithCustomError(uint256 code)");
    expect(failed.decoded_input?.parameters).toEqual([
      { name: "code", type: "uint256", value: String(code) },
    ]);
    expect(failed.revert_reason).toMatchObject({
      method_call: "RequestedFailure(address caller, uint256 code)",
      parameters: [
        { name: "caller", type: "address", value: getAddress(sent.from) },
        { name: "code", type: "uint256", value: String(code) },
      ],
    });
    const body = (await app.inject(`/api/v2/addresses/${contracts.playground}/transactions`)).json();
    expect(body.items[0].to).toMatchObject({
      hash: getAddress(contracts.playground),
      is_verified: true,
      name: "Playground",
    });
  });

  it("asks a configured interpretation service first and interprets itself when the service fails", async () => {
    const told = {
      success: true,
      data: {
        summaries: [
          {
            summary_template: "{action_type} elsewhere",
            summary_template_variables: { action_type: { type: "string", value: "Told" } },
          },
        ],
      },
    };
    const service = createServer((request, response) => {
      const answers = request.url === `/api/v2/transactions/${examples.valueTransfer}/summary`;
      response.writeHead(answers ? 200 : 500, { "content-type": "application/json" });
      response.end(answers ? JSON.stringify(told) : "{}");
    }).listen(0, "127.0.0.1");
    await once(service, "listening");
    const { port } = service.address() as AddressInfo;
    const withService = await createApiServer({
      db: indexed.test.db,
      interpreterUrl: `http://127.0.0.1:${port}`,
    });
    try {
      expect(
        (await withService.inject(`/api/v2/transactions/${examples.valueTransfer}/summary`)).json(),
      ).toEqual(told);
      const own = (await withService.inject(`/api/v2/transactions/${examples.tokenTransfer}/summary`)).json();
      expect(own.data.summaries[0].summary_template).toBe(
        "{action_type} {amount} {token} from {from_address} to {to_address}",
      );
    } finally {
      await withService.close();
      service.close();
    }
  });

  it("decodes every example call to a contract with the values the node holds, field by field", async () => {
    const hashes = [
      ...(Object.values(examples) as Hash[]),
      ...(Object.values(scenario.userOperations.examples) as { transfer: { transactionHash: Hash } }[]).map(
        (version) => version.transfer.transactionHash,
      ),
    ];
    let checked = 0;
    for (const hash of hashes) {
      const sent = await node.getTransaction({ hash });
      if (sent.to === null || sent.input.length < 10) continue;
      const item = await listed(sent.to, hash);
      if (item.decoded_input === null) continue;
      const { method_call, method_id, parameters } = item.decoded_input;
      expect(method_id, hash).toBe(sent.input.slice(2, 10));
      const signature = parseAbiItem(`function ${method_call}`) as AbiFunction;
      const { args } = decodeFunctionData({ abi: [signature], data: sent.input });
      expect(
        parameters.map(({ name }) => name),
        hash,
      ).toEqual(signature.inputs.map(({ name }) => name));
      expect(
        parameters.map(({ value }) => value),
        hash,
      ).toEqual((args ?? []).map(rendered));
      checked++;
    }
    // Tokens, NFTs, Aave, the proxy, the Playground's calls without arguments left out, ERC-4337 bundles.
    expect(checked).toBeGreaterThanOrEqual(20);
  });
});

/** A decoded value as Blockscout writes it: integers as decimal strings, arrays and tuples as arrays. */
function rendered(value: unknown): unknown {
  if (typeof value === "bigint" || typeof value === "number") return value.toString();
  if (typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return value.map(rendered);
  if (value !== null && typeof value === "object") return Object.values(value).map(rendered);
  return value;
}
