import { type Address, getAddress, keccak256, slice, toHex } from "viem";
import { call, deployed, type Scenario } from "./context.ts";
import { mineTogether, type PlannedTransaction } from "./mine.ts";

/** What the scenario's deep lists hold: more than a page each, with values a JSON double rounds. */
export type ScenarioDepth = {
  /** Addresses without keys that `token` was minted to: above 1e21, just above 2^60 and near 1e20, with ties. */
  tokenHolders: Address[];
  /** The `multiToken` id minted to more than a page of holders (`multiTokenIdHolders`). */
  multiTokenId: bigint;
  multiTokenIdHolders: Address[];
  /** The account holding more than a page of `multiToken` ids (`multiTokenIds`), with amounts above 1e21. */
  multiTokenIdsHolder: Address;
  multiTokenIds: bigint[];
};

/** Largest integer a JSON double holds exactly is 2^53; 2^60 is well past it (doubles there step by 256). */
const twoTo60 = 2n ** 60n;
/** Transactions per block of {@link depthActivity}. */
const depthBlockSize = 50;
/** The example of a value `String(JSON.parse(...))` prints as `4.994e+21`. */
const above1e21 = 4_993_999_999_999_999_999_904n;

/** An address no key controls (never a sender), derived from `label` and `index`. */
function keylessAddress(label: string, index: number): Address {
  return getAddress(slice(keccak256(toHex(`sextant demo ${label} ${index}`)), 12));
}

/**
 * A run of `count` values counting down by one from `top`, where every fifth value repeats the one before
 * (ties that only the address or id orders): all of them print as the same JSON double.
 */
function denseRun(top: bigint, count: number): bigint[] {
  const values: bigint[] = [];
  // Index 2 of every five repeats index 1's value, which is no repeat itself.
  for (let index = 0; index < count; index++) values.push(top - BigInt(index % 5 === 2 ? index - 1 : index));
  return values;
}

/**
 * Lists deeper than a page, so paging is exercised on the demo chain (endpoints 1, 6 and 9): `token` minted
 * to 135 new holders (a dense run just below 4.994e21, one just above 2^60, and a few near 1e20), one
 * `multiToken` id minted to 65 holders (a dense run above 2^60, then ties at 3), and 60 `multiToken` ids
 * minted at once to one account with amounts just below 4.994e21, in pairs of equal amounts. The dense runs
 * are long enough that page boundaries fall inside them wherever the other holders rank, so a cursor
 * `value` sent back rounded lands between rows. The owner's mints, in blocks of {@link depthBlockSize}.
 */
export async function depthActivity(scenario: Scenario): Promise<ScenarioDepth> {
  const { accounts } = scenario;
  const [owner] = accounts;
  const token = deployed(scenario, "token");
  const multiToken = deployed(scenario, "multiToken");
  const tokenAmounts = [
    ...denseRun(above1e21, 60),
    ...[1n, 2n, 3n, 3n, 5n].map((step) => step * 10n ** 20n + 7n),
    ...denseRun(twoTo60 + 120n, 70),
  ];
  const tokenMints = tokenAmounts.map((amount, index) => ({
    holder: keylessAddress("token holder", index),
    amount,
  }));
  const multiTokenId = 7000n;
  const idAmounts = [...denseRun(twoTo60 + 100n, 55), ...Array.from({ length: 10 }, () => 3n)];
  const idMints = idAmounts.map((amount, index) => ({
    holder: keylessAddress("multi-token holder", index),
    amount,
  }));
  const multiTokenIds = Array.from({ length: 60 }, (_, index) => 8000n + BigInt(index));
  const multiTokenIdsHolder = accounts[1];
  const plans: PlannedTransaction[] = [
    ...tokenMints.map(({ holder, amount }) => ({
      from: owner,
      to: token,
      data: call(scenario, "DemoToken", "mint", [holder, amount]),
    })),
    {
      from: owner,
      to: multiToken,
      data: call(scenario, "DemoMultiToken", "mintBatch", [
        multiTokenIdsHolder,
        multiTokenIds,
        multiTokenIds.map((_, index) => above1e21 - BigInt(Math.floor(index / 2))),
        "0x",
      ]),
    },
    ...idMints.map(({ holder, amount }) => ({
      from: owner,
      to: multiToken,
      data: call(scenario, "DemoMultiToken", "mint", [holder, multiTokenId, amount, "0x"]),
    })),
  ];
  // Blocks of at most 50: tracing a block with debug_traceBlockByNumber costs the square of its size.
  for (let start = 0; start < plans.length; start += depthBlockSize)
    await mineTogether(scenario, plans.slice(start, start + depthBlockSize));
  return {
    tokenHolders: tokenMints.map(({ holder }) => holder),
    multiTokenId,
    multiTokenIdHolders: idMints.map(({ holder }) => holder),
    multiTokenIdsHolder,
    multiTokenIds,
  };
}
