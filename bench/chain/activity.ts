import {
  type Address,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  getContractAddress,
  type Hex,
  keccak256,
  toHex,
} from "viem";
import { type Artifacts, artifactOf } from "../../src/demo/compile.ts";
import type { ScenarioContracts } from "../../src/demo/scenario/context.ts";
import { required } from "../../src/required.ts";

/** The kinds of transaction the benchmark chain mixes, with their weight in a block (out of 100). */
export const activityWeights = {
  valueTransfer: 25,
  erc20Transfer: 26,
  erc20Approval: 2,
  erc721Mint: 3,
  erc721Transfer: 6,
  erc1155Transfer: 5,
  erc1155Batch: 4,
  swap: 8,
  nestedCalls: 4,
  valueSplit: 3,
  create: 1,
  create2: 1,
  creationFromAccount: 1,
  newTokenMint: 1,
  wrap: 3,
  caughtInnerFailure: 2,
  failure: 4,
  failedCreate2: 1,
} as const;

export type ActivityKind = keyof typeof activityWeights;

/** One transaction as `eth_sendTransaction` takes it (hex quantities), and its kind. */
export type PlannedTransaction = { kind: ActivityKind; request: Record<string, Hex | Address> };

/** What the planner needs of the chain built before the bulk activity. */
export type PlannerSetup = {
  artifacts: Artifacts;
  contracts: ScenarioContracts;
  /** The account that owns the scenario's tokens (mints them). */
  owner: Address;
  /** Accounts that send the bulk activity. */
  senders: Address[];
  /** Next nonce of every sender and of the owner. */
  nonces: Map<Address, number>;
  /** ERC-721 ids the senders hold when the bulk activity starts. */
  nftOwners: Map<bigint, Address>;
  /** The id the collectible mints next. */
  nextNftId: bigint;
};

const maxFeePerGas = toHex(100n * 10n ** 9n);
const maxPriorityFeePerGas = toHex(10n ** 9n);
const fullRangeTick = 887_220;
const tokenUnit = 10n ** 18n;
const dollarUnit = 10n ** 6n;
/** ERC-1155 ids every sender holds. */
export const multiTokenIds: [bigint, ...bigint[]] = [1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n];

/** A small seeded generator (mulberry32): the same seed plans the same chain. */
export function createRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    integer: (below: number) => Math.floor(next() * below),
    pick: <T>(items: readonly T[]): T => {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new Error("cannot pick from an empty list");
      return item;
    },
  };
}

/** `count` deterministic addresses (from a hash of their role and index); no key is known for them. */
export function derivedAddresses(role: "sender" | "recipient", count: number): Address[] {
  return Array.from({ length: count }, (_, i) =>
    getAddress(`0x${keccak256(toHex(`bench-${role}-${i}`)).slice(-40)}`),
  );
}

/**
 * Plans the bulk activity block by block. Every transaction carries its nonce and gas, so a block is sent as
 * one JSON-RPC batch and mined with `evm_mine`; failures are meant (they revert on chain, not at sending).
 * The planner tracks what it moves (NFT owners, salts, created tokens) so later blocks only spend what
 * earlier blocks produced.
 */
export function createActivityPlanner(setup: PlannerSetup, seed: number, recipientCount: number) {
  const { artifacts, contracts, owner, senders, nonces } = setup;
  const random = createRandom(seed);
  const recipients = derivedAddresses("recipient", recipientCount);
  const nftOwners = new Map(setup.nftOwners);
  let nextNftId = setup.nextNftId;
  // Above the demo scenario's salts (its round numbers), so only the meant collisions fail.
  let salt = 1n << 32n;
  const usedSalts: bigint[] = [];
  /** Tokens deployed by senders during the activity, usable from the block after their creation. */
  const newTokens: { address: Address; owner: Address }[] = [];
  const tokenIsToken0 = BigInt(contracts.token) < BigInt(contracts.secondToken);
  const kinds = Object.entries(activityWeights) as [ActivityKind, number][];
  const totalWeight = kinds.reduce((sum, [, weight]) => sum + weight, 0);

  const call = (contract: string, functionName: string, args: unknown[]) =>
    encodeFunctionData({ abi: artifactOf(artifacts, contract).abi, functionName, args });
  /** The kind a `roll` below the total weight falls on, each kind taking as many values as its weight. */
  const weightedKind = (roll: number): ActivityKind => {
    let rest = roll;
    for (const [kind, weight] of kinds) {
      if (rest < weight) return kind;
      rest -= weight;
    }
    throw new Error(`roll ${roll} is not below the total weight ${totalWeight}`);
  };
  const send = (
    kind: ActivityKind,
    from: Address,
    fields: { to?: Address; data?: Hex; value?: bigint; gas: number },
    legacy = false,
  ): PlannedTransaction => {
    const nonce = nonces.get(from) ?? 0;
    nonces.set(from, nonce + 1);
    const request: Record<string, Hex | Address> = { from, nonce: toHex(nonce), gas: toHex(fields.gas) };
    if (fields.to) request.to = fields.to;
    if (fields.data) request.data = fields.data;
    if (fields.value) request.value = toHex(fields.value);
    if (legacy) request.gasPrice = maxFeePerGas;
    else Object.assign(request, { maxFeePerGas, maxPriorityFeePerGas });
    return { kind, request };
  };
  const anyone = () => (random.next() < 0.3 ? random.pick(senders) : random.pick(recipients));

  function plan(kind: ActivityKind, changes: (() => void)[]): PlannedTransaction {
    const from = random.pick(senders);
    switch (kind) {
      case "valueTransfer":
        return send(
          kind,
          from,
          { to: anyone(), value: BigInt(1 + random.integer(10_000)) * 10n ** 12n, gas: 21_000 },
          random.next() < 0.2,
        );
      case "erc20Transfer": {
        const dollar = random.next() < 0.4;
        const amount = BigInt(1 + random.integer(1_000)) * (dollar ? dollarUnit : tokenUnit);
        const to = dollar ? contracts.secondToken : contracts.token;
        return send(kind, from, { to, data: call("DemoToken", "transfer", [anyone(), amount]), gas: 70_000 });
      }
      case "erc20Approval":
        return send(kind, from, {
          to: contracts.token,
          data: call("DemoToken", "approve", [
            random.pick(recipients),
            BigInt(random.integer(1_000)) * tokenUnit,
          ]),
          gas: 60_000,
        });
      case "erc721Mint": {
        const id = nextNftId++;
        changes.push(() => nftOwners.set(id, from));
        return send(kind, owner, {
          to: contracts.collectible,
          data: call("DemoCollectible", "mint", [from, `data:application/json,{"name":"Bench ${id}"}`]),
          gas: 250_000,
        });
      }
      case "erc721Transfer": {
        const [id, holder] = random.pick([...nftOwners.entries()]);
        const to = random.next() < 0.7 ? random.pick(senders) : random.pick(recipients);
        nftOwners.delete(id);
        if (senders.includes(to)) changes.push(() => nftOwners.set(id, to));
        return send(kind, holder, {
          to: contracts.collectible,
          data: call("DemoCollectible", "safeTransferFrom", [holder, to, id]),
          gas: 120_000,
        });
      }
      case "erc1155Transfer":
        return send(kind, from, {
          to: contracts.multiToken,
          data: call("DemoMultiToken", "safeTransferFrom", [
            from,
            anyone(),
            random.pick(multiTokenIds),
            BigInt(1 + random.integer(100)),
            "0x",
          ]),
          gas: 90_000,
        });
      case "erc1155Batch": {
        const ids = multiTokenIds.filter(() => random.next() < 0.5);
        if (ids.length === 0) ids.push(multiTokenIds[0]);
        const amounts = ids.map(() => BigInt(1 + random.integer(100)));
        return send(kind, from, {
          to: contracts.multiToken,
          data: call("DemoMultiToken", "safeBatchTransferFrom", [from, anyone(), ids, amounts, "0x"]),
          gas: 80_000 + 30_000 * ids.length,
        });
      }
      case "swap": {
        const zeroForOne = random.next() < 0.5;
        const inputIsToken = zeroForOne === tokenIsToken0;
        const amountIn = BigInt(1 + random.integer(100)) * (inputIsToken ? tokenUnit : dollarUnit);
        return send(kind, from, {
          to: contracts.uniswapCallee,
          data: call("UniswapV3Callee", "swapExactInput", [
            contracts.uniswapV3Pool,
            zeroForOne,
            amountIn,
            from,
          ]),
          gas: 350_000,
        });
      }
      case "nestedCalls":
        return send(kind, from, {
          to: contracts.playground,
          data: call("Playground", "nestedCalls", [BigInt(1 + random.integer(4))]),
          gas: 400_000,
        });
      case "valueSplit": {
        const to = [random.pick(recipients), random.pick(recipients), random.pick(senders)];
        return send(kind, from, {
          to: contracts.playground,
          data: call("Playground", "split", [to]),
          value: 3n * 10n ** 15n,
          gas: 150_000,
        });
      }
      case "create":
        return send(kind, from, {
          to: contracts.playground,
          data: call("Playground", "createChild", []),
          value: 1000n,
          gas: 200_000,
        });
      case "create2": {
        const used = ++salt;
        usedSalts.push(used);
        return send(kind, from, {
          to: contracts.playground,
          data: call("Playground", "createChild2", [toHex(used, { size: 32 })]),
          gas: 200_000,
        });
      }
      case "failedCreate2":
        // A salt already used (or planned earlier in this block) collides: the CREATE2 fails, the call reverts.
        if (usedSalts.length === 0) return plan("failure", changes);
        return send(kind, from, {
          to: contracts.playground,
          data: call("Playground", "createChild2", [toHex(random.pick(usedSalts), { size: 32 })]),
          gas: 200_000,
        });
      case "creationFromAccount": {
        if (random.next() < 0.5) {
          const { abi, bytecode } = artifactOf(artifacts, "Child");
          return send(kind, from, { data: encodeDeployData({ abi, bytecode }), gas: 200_000 });
        }
        const nonce = nonces.get(from) ?? 0;
        const address = getContractAddress({ from, nonce: BigInt(nonce) });
        changes.push(() => newTokens.push({ address, owner: from }));
        const { abi, bytecode } = artifactOf(artifacts, "DemoToken");
        return send(kind, from, { data: encodeDeployData({ abi, bytecode, args: [from] }), gas: 2_000_000 });
      }
      case "newTokenMint": {
        if (newTokens.length === 0) return plan("erc20Transfer", changes);
        const token = random.pick(newTokens);
        return send(kind, token.owner, {
          to: token.address,
          data: call("DemoToken", "mint", [anyone(), BigInt(1 + random.integer(1_000)) * tokenUnit]),
          gas: 80_000,
        });
      }
      case "wrap":
        return send(kind, from, {
          to: contracts.weth,
          data: call("WETH9", "deposit", []),
          value: 10n ** 15n,
          gas: 60_000,
        });
      case "caughtInnerFailure":
        return send(kind, from, {
          to: contracts.playground,
          data: call("Playground", "catchInnerFailure", []),
          gas: 120_000,
        });
      case "failure": {
        const choice = random.integer(3);
        if (choice === 0)
          return send(kind, from, {
            to: contracts.playground,
            data: call("Playground", "failWithReason", []),
            gas: 50_000,
          });
        if (choice === 1)
          return send(kind, from, {
            to: contracts.playground,
            data: call("Playground", "failWithCustomError", [BigInt(random.integer(100))]),
            gas: 50_000,
          });
        // More than any sender holds: ERC20InsufficientBalance.
        return send(kind, from, {
          to: contracts.token,
          data: call("DemoToken", "transfer", [anyone(), 10n ** 40n]),
          gas: 70_000,
        });
      }
    }
  }

  return {
    /** A block size around `average`: 60–140 % of it. */
    size: (average: number) => Math.round(average * (0.6 + 0.8 * random.next())),
    /** The transactions of the next block. */
    block(size: number): PlannedTransaction[] {
      const changes: (() => void)[] = [];
      const planned: PlannedTransaction[] = [];
      for (let i = 0; i < size; i++) {
        let kind = weightedKind(random.integer(totalWeight));
        if (kind === "erc721Transfer" && nftOwners.size === 0) kind = "erc721Mint";
        planned.push(plan(kind, changes));
      }
      for (const change of changes) change();
      return planned;
    },
  };
}

/**
 * The transactions that give the senders what the bulk activity spends: ether from the node's dev
 * accounts, tokens, approvals and liquidity.
 */
export function planFunding(
  setup: PlannerSetup,
  devAccounts: Address[],
): { first: PlannedTransaction[]; second: PlannedTransaction[] } {
  const { artifacts, contracts, owner, senders, nonces } = setup;
  const call = (contract: string, functionName: string, args: unknown[]) =>
    encodeFunctionData({ abi: artifactOf(artifacts, contract).abi, functionName, args });
  const send = (from: Address, to: Address, data: Hex, gas: number): PlannedTransaction => {
    const nonce = nonces.get(from) ?? 0;
    nonces.set(from, nonce + 1);
    return {
      kind: "erc20Transfer",
      request: { from, to, data, nonce: toHex(nonce), gas: toHex(gas), maxFeePerGas, maxPriorityFeePerGas },
    };
  };
  const first: PlannedTransaction[] = senders.map((sender, i) => {
    const from = required(devAccounts[i % devAccounts.length], "a dev account to fund the senders from");
    const nonce = nonces.get(from) ?? 0;
    nonces.set(from, nonce + 1);
    const request = {
      from,
      to: sender,
      value: toHex(50n * tokenUnit),
      nonce: toHex(nonce),
      gas: toHex(21_000),
      maxFeePerGas,
      maxPriorityFeePerGas,
    };
    return { kind: "valueTransfer", request };
  });
  for (const holder of [owner, ...senders]) {
    first.push(
      send(owner, contracts.token, call("DemoToken", "mint", [holder, 10n ** 9n * tokenUnit]), 80_000),
    );
    first.push(
      send(
        owner,
        contracts.secondToken,
        call("DemoDollar", "mint", [holder, 10n ** 9n * dollarUnit]),
        80_000,
      ),
    );
  }
  for (const holder of senders) {
    first.push(
      send(
        owner,
        contracts.multiToken,
        call("DemoMultiToken", "mintBatch", [
          holder,
          multiTokenIds,
          multiTokenIds.map(() => 10n ** 9n),
          "0x",
        ]),
        400_000,
      ),
    );
  }
  const second: PlannedTransaction[] = [];
  for (const holder of [owner, ...senders]) {
    second.push(
      send(
        holder,
        contracts.token,
        call("DemoToken", "approve", [contracts.uniswapCallee, 2n ** 255n]),
        60_000,
      ),
    );
    second.push(
      send(
        holder,
        contracts.secondToken,
        call("DemoToken", "approve", [contracts.uniswapCallee, 2n ** 255n]),
        60_000,
      ),
    );
  }
  // Full-range liquidity: about a million whole tokens of each side at the pool's 1:1 price.
  second.push(
    send(
      owner,
      contracts.uniswapCallee,
      call("UniswapV3Callee", "mint", [contracts.uniswapV3Pool, -fullRangeTick, fullRangeTick, 10n ** 18n]),
      600_000,
    ),
  );
  return { first, second };
}
