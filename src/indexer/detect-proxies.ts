import {
  type Address,
  getAbiItem,
  getAddress,
  type Hash,
  type Hex,
  toEventSelector,
  toFunctionSelector,
} from "viem";
import { recoverAuthorizationAddress } from "viem/utils";
import { erc1967Abi, upgradeableBeaconAbi } from "../decode/builtin-abis.ts";
import type { RpcClient } from "../rpc/client.ts";
import { isMethodNotSupported, type RpcResponseError } from "../rpc/errors.ts";
import { eth_call } from "../rpc/eth_call.ts";
import { eth_getCode } from "../rpc/eth_getCode.ts";
import { eth_getStorageAt } from "../rpc/eth_getStorageAt.ts";
import { perBlock } from "../rpc/per-block.ts";
import type { StateBlock } from "../rpc/read-state.ts";
import type { RpcFullBlock, RpcReceipt } from "../rpc/types.ts";
import type { InternalTransaction } from "./map-traces.ts";
import { rangeBlocks } from "./range-blocks.ts";

/** Blockscout's `proxy_type` values for the proxies Sextant detects. */
export type ProxyType = "eip1967" | "eip1967_beacon" | "eip1822" | "eip1167" | "eip7702";

/** What an address delegates to at one block. */
export type ProxyDetection = {
  /** Lowercase. */
  address: Address;
  /** The block of the creation, upgrade or authorization that made it worth reading; read at that block. */
  blockNumber: bigint;
  /** Null: not a proxy (a refreshed proxy that no longer is one, or a beacon: see `implementation`). */
  proxyType: ProxyType | null;
  /** Lowercase, null when none could be read; for a beacon's own row the implementation it hands out. */
  implementation: Address | null;
  /** Lowercase beacon of an `eip1967_beacon` proxy. */
  beacon: Address | null;
};

export type DetectProxiesParameters = {
  blocks: RpcFullBlock[];
  /** `receipts[i]` are the receipts of `blocks[i]`. */
  receipts: RpcReceipt[][];
  internalTransactions: InternalTransaction[][][] | null;
};

export type DetectProxiesReturnType = ProxyDetection[];

/** EIP-1967 slots: `bytes32(uint256(keccak256("eip1967.proxy.implementation")) - 1)`, and the beacon's. */
export const eip1967ImplementationSlot: Hex =
  "0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc";
export const eip1967BeaconSlot: Hex = "0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50";
/** EIP-1822's `keccak256("PROXIABLE")`. */
export const eip1822ProxiableSlot: Hex = "0xc5f16f0fcc639fa48a6947836d9850f504798523bf8c9a3a87d5876cf622bcf7";

const upgradedTopic = toEventSelector(getAbiItem({ abi: erc1967Abi, name: "Upgraded" }));
const beaconUpgradedTopic = toEventSelector(getAbiItem({ abi: erc1967Abi, name: "BeaconUpgraded" }));
/** `implementation()`, which EIP-1967 beacons answer. */
const implementationSelector = toFunctionSelector(
  getAbiItem({ abi: upgradeableBeaconAbi, name: "implementation" }),
);
const minimalProxy = /^0x363d3d373d3d3d363d73([0-9a-f]{40})5af43d82803e903d91602b57fd5bf3$/;
const delegationDesignator = /^0xef0100([0-9a-f]{40})$/;
const zeroAddress = `0x${"0".repeat(40)}`;

/** `code`: the runtime code a successful create frame returned, so it need not be read from the node. */
type Candidate = { address: Address; block: StateBlock; refresh: boolean; code?: Hex };

/** A detection being worked out: who to ask for the implementation, and whether it always gives a row. */
type Detection = ProxyDetection & { block: StateBlock; ask: Address | null; refresh: boolean };

/**
 * Finds the range's proxies and what they delegate to: contracts created in it (receipts and successful
 * create frames), emitters of `Upgraded`/`BeaconUpgraded` and authorities of EIP-7702 authorizations, each
 * read at the block of its event (code first: EIP-7702 designators and EIP-1167 clones, then the EIP-1967
 * implementation and beacon slots and EIP-1822's PROXIABLE slot; a beacon's `implementation()` by call).
 * Created contracts that are no proxy give no row; refreshed addresses always give one, so a proxy that
 * stopped being one (a cleared delegation) shows as such. A node without `eth_getCode` or
 * `eth_getStorageAt` gives no rows.
 */
export async function detectProxies(
  client: RpcClient,
  { blocks, receipts, internalTransactions }: DetectProxiesParameters,
): Promise<DetectProxiesReturnType> {
  const candidates = await candidatesOf({ blocks, receipts, internalTransactions });
  if (candidates.length === 0) return [];
  try {
    return await readProxies(client, candidates);
  } catch (error) {
    if (!isMethodNotSupported(error)) throw error;
    return [];
  }
}

async function candidatesOf(range: DetectProxiesParameters): Promise<Candidate[]> {
  const found = new Map<string, Candidate>();
  const add = (address: string, block: StateBlock, refresh: boolean, code?: Hex) => {
    const lower = address.toLowerCase() as Address;
    const key = `${lower}/${block.number}`;
    const known = found.get(key);
    if (known) {
      known.refresh ||= refresh;
      known.code ??= code;
    } else found.set(key, { address: lower, block, refresh, code });
  };
  for (const { block, transactions } of rangeBlocks(range)) {
    const at = { number: BigInt(block.number as Hex), hash: block.hash as Hash };
    for (const frame of transactions.flatMap(({ frames }) => frames ?? [])) {
      if (frame.createdContract && frame.error === null)
        add(frame.createdContract, at, false, frame.output ?? undefined);
    }
    for (const { receipt } of transactions) {
      if (receipt.contractAddress && receipt.status !== "0x0") add(receipt.contractAddress, at, false);
      for (const log of receipt.logs) {
        const topic = log.topics[0];
        if (topic === upgradedTopic || topic === beaconUpgradedTopic) add(log.address, at, true);
      }
    }
    for (const transaction of block.transactions) {
      if (transaction.type !== "0x4") continue;
      for (const authorization of transaction.authorizationList ?? []) {
        const authority = await authorityOf(authorization);
        if (authority) add(authority, at, true);
      }
    }
  }
  return [...found.values()];
}

/** The signer of an EIP-7702 authorization, or null for a signature that recovers to nobody. */
async function authorityOf(authorization: {
  address: Address;
  chainId: Hex;
  nonce: Hex;
  r: Hex;
  s: Hex;
  yParity: Hex;
}): Promise<Address | null> {
  try {
    return await recoverAuthorizationAddress({
      authorization: {
        address: authorization.address,
        chainId: Number(authorization.chainId),
        nonce: Number(authorization.nonce),
        r: authorization.r,
        s: authorization.s,
        yParity: Number(authorization.yParity),
      },
    });
  } catch {
    // The chain skips an authorization it cannot recover, so it changed nothing.
    return null;
  }
}

async function readProxies(client: RpcClient, candidates: Candidate[]): Promise<ProxyDetection[]> {
  const slots = [eip1967ImplementationSlot, eip1967BeaconSlot, eip1822ProxiableSlot];
  const unknownCode = candidates.filter((candidate) => candidate.code === undefined);
  const read = await perBlock(unknownCode, (block, group) =>
    eth_getCode(client, { addresses: group.map(({ address }) => address), block }),
  );
  const readCode = new Map(unknownCode.map((candidate, i) => [candidate, read[i]]));
  const codes = candidates.map((candidate) => candidate.code ?? readCode.get(candidate));
  // Storage slots only make a proxy of code that can delegate: most new contracts cannot, and reading
  // three slots of each at a past block is most of this stage's cost.
  const delegating = candidates.filter((_, i) => canDelegateCall(codes[i]));
  const words = await eth_getStorageAt(client, {
    reads: delegating.flatMap(({ address, block }) => slots.map((slot) => ({ address, slot, block }))),
  });
  const slotWords = new Map(delegating.map((candidate, i) => [candidate, words.slice(i * 3, i * 3 + 3)]));
  const detections = candidates.map((candidate, i): Detection => {
    const row = {
      address: candidate.address,
      blockNumber: candidate.block.number,
      block: candidate.block,
      beacon: null,
      ask: null,
      refresh: candidate.refresh,
    };
    const code = (codes[i] ?? "0x").toLowerCase();
    const delegate = delegationDesignator.exec(code)?.[1] ?? minimalProxy.exec(code)?.[1];
    if (delegate) {
      const proxyType = code.startsWith("0xef0100") ? "eip7702" : "eip1167";
      return { ...row, proxyType, implementation: `0x${delegate}` };
    }
    if (code === "0x") return { ...row, proxyType: null, implementation: null };
    const [implementation, beacon, proxiable] = (slotWords.get(candidate) ?? []).map(addressIn);
    if (implementation) return { ...row, proxyType: "eip1967", implementation };
    if (beacon) return { ...row, proxyType: "eip1967_beacon", implementation: null, beacon, ask: beacon };
    if (proxiable) return { ...row, proxyType: "eip1822", implementation: proxiable };
    // An Upgraded emitter without proxy slots is likely a beacon: its own implementation() tells.
    return {
      ...row,
      proxyType: null,
      implementation: null,
      ask: candidate.refresh ? candidate.address : null,
    };
  });
  const asking = detections.filter((detection) => detection.ask !== null);
  const answers = await perBlock(asking, (block, group) =>
    eth_call(client, {
      calls: group.map(({ ask }) => ({ to: ask as Address, data: implementationSelector })),
      block,
    }),
  );
  asking.forEach((detection, i) => {
    detection.implementation = addressIn(answers[i]);
  });
  return detections
    .filter((detection) => detection.refresh || detection.proxyType !== null)
    .map(({ block: _block, ask: _ask, refresh: _refresh, ...detection }) => detection);
}

/** The nonzero address held by a 32-byte word whose upper 12 bytes are zero, else null. */
function addressIn(word: Hex | RpcResponseError | undefined): Address | null {
  if (typeof word !== "string") return null;
  const hex = word.slice(2).padStart(64, "0");
  if (hex.length !== 64 || !/^0{24}[0-9a-f]{40}$/i.test(hex)) return null;
  const address = `0x${hex.slice(24).toLowerCase()}`;
  return address === zeroAddress ? null : (getAddress(address).toLowerCase() as Address);
}

/** Whether the code holds a DELEGATECALL instruction (push data skipped), which every storage-slot proxy needs. */
function canDelegateCall(code: Hex | undefined): boolean {
  if (typeof code !== "string") return false;
  for (let i = 2; i < code.length; i += 2) {
    const opcode = Number.parseInt(code.slice(i, i + 2), 16);
    if (opcode === 0xf4) return true;
    // PUSH1..PUSH32 carry 1..32 bytes of data that are not instructions.
    if (opcode >= 0x60 && opcode <= 0x7f) i += 2 * (opcode - 0x5f);
  }
  return false;
}
