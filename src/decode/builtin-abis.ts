import {
  type Abi,
  type AbiEvent,
  type AbiFunction,
  type AbiParameter,
  erc20Abi,
  erc721Abi,
  erc1155Abi,
  erc4626Abi,
  type Hex,
  multicall3Abi,
  toEventSelector,
  toFunctionSelector,
} from "viem";
import { entryPoint06Abi, entryPoint07Abi, entryPoint08Abi } from "viem/account-abstraction";
import { formatAbiItem } from "viem/utils";
import { aaveV3PoolAbi } from "./abis/aave-core-v3.ts";
import { weth9Abi } from "./abis/canonical-weth.ts";
import {
  erc20BurnableAbi,
  erc20ErrorsAbi,
  erc165Abi,
  erc721BurnableAbi,
  erc721ErrorsAbi,
  erc1155BurnableAbi,
  erc1155ErrorsAbi,
  erc1822ProxiableAbi,
  erc1967Abi,
  erc1967ProxyAbi,
  ownableAbi,
  proxyAdminAbi,
  upgradeableBeaconAbi,
  uupsUpgradeableAbi,
} from "./abis/openzeppelin-contracts.ts";
import { uniswapV3FactoryAbi, uniswapV3PoolAbi } from "./abis/uniswap-v3-core.ts";
import { nonfungiblePositionManagerAbi, swapRouterAbi } from "./abis/uniswap-v3-periphery.ts";

// The packages' ABIs are modules generated from them (see generate-abis.ts), so viem infers their types.
export {
  aaveV3PoolAbi,
  entryPoint06Abi,
  entryPoint07Abi,
  entryPoint08Abi,
  erc20Abi,
  erc20ErrorsAbi,
  erc165Abi,
  erc721Abi,
  erc721ErrorsAbi,
  erc1155Abi,
  erc1155ErrorsAbi,
  erc1822ProxiableAbi,
  erc1967Abi,
  erc1967ProxyAbi,
  erc4626Abi,
  multicall3Abi,
  nonfungiblePositionManagerAbi,
  ownableAbi,
  proxyAdminAbi,
  swapRouterAbi,
  uniswapV3FactoryAbi,
  uniswapV3PoolAbi,
  upgradeableBeaconAbi,
  uupsUpgradeableAbi,
  weth9Abi,
};

/**
 * The standard interface of each token type, with OpenZeppelin's burn extensions: a call to a known
 * token decodes with its own standard's names first (`burn(uint256 value)` of an ERC-20, not an
 * ERC-721's `burn(uint256 tokenId)`, which has the same selector).
 */
export const tokenStandardAbis: Record<string, Abi> = {
  "ERC-20": [...erc20Abi, ...erc20BurnableAbi],
  "ERC-721": [...erc721Abi, ...erc721BurnableAbi],
  "ERC-1155": [...erc1155Abi, ...erc1155BurnableAbi],
  "ERC-404": [...erc20Abi, ...erc20BurnableAbi, ...erc721Abi],
};

/** An ABI's `error` item (viem exports the function and event item types, not this one). */
export type AbiError = Extract<Abi[number], { type: "error" }>;

/** An ABI with a human name for it, e.g. to name a contract whose code matches it. */
export type NamedAbi = { name: string; abi: Abi };

/**
 * Every built-in ABI, in the order decoding prefers them when two declare the same selector or topic
 * with different parameter names: the token standards first, so `transfer` reads as ERC-20's.
 */
export const builtinAbis: readonly NamedAbi[] = [
  { name: "ERC-20", abi: erc20Abi },
  { name: "ERC-721", abi: erc721Abi },
  { name: "ERC-1155", abi: erc1155Abi },
  { name: "ERC-4626", abi: erc4626Abi },
  { name: "ERC-165", abi: erc165Abi },
  { name: "ERC-20 errors", abi: erc20ErrorsAbi },
  { name: "ERC-721 errors", abi: erc721ErrorsAbi },
  { name: "ERC-1155 errors", abi: erc1155ErrorsAbi },
  { name: "WETH9", abi: weth9Abi },
  { name: "ERC1967Proxy", abi: erc1967ProxyAbi },
  { name: "IERC1967", abi: erc1967Abi },
  { name: "UUPSUpgradeable", abi: uupsUpgradeableAbi },
  { name: "ProxyAdmin", abi: proxyAdminAbi },
  { name: "UpgradeableBeacon", abi: upgradeableBeaconAbi },
  { name: "IERC1822Proxiable", abi: erc1822ProxiableAbi },
  { name: "Ownable", abi: ownableAbi },
  { name: "Multicall3", abi: multicall3Abi },
  { name: "EntryPoint v0.6", abi: entryPoint06Abi },
  { name: "EntryPoint v0.7", abi: entryPoint07Abi },
  { name: "EntryPoint v0.8", abi: entryPoint08Abi },
  { name: "UniswapV3Pool", abi: uniswapV3PoolAbi },
  { name: "UniswapV3Factory", abi: uniswapV3FactoryAbi },
  { name: "NonfungiblePositionManager", abi: nonfungiblePositionManagerAbi },
  { name: "SwapRouter", abi: swapRouterAbi },
  { name: "Aave v3 Pool", abi: aaveV3PoolAbi },
];

/**
 * An ABI's functions, events and errors by selector (lowercase `0x` hex: 4 bytes, 32 for events). A
 * selector may have several entries: the same signature with other parameter names, or a rare collision.
 */
export type AbiIndex = {
  functions: ReadonlyMap<Hex, readonly AbiFunction[]>;
  /** Anonymous events have no selector topic and are left out. */
  events: ReadonlyMap<Hex, readonly AbiEvent[]>;
  errors: ReadonlyMap<Hex, readonly AbiError[]>;
};

const indexes = new WeakMap<Abi, AbiIndex>();

/**
 * Indexes an ABI by selector; the index is kept as long as the ABI object lives, so decoding many
 * transactions of one contract hashes its signatures once. Entries that differ in nothing are kept once.
 *
 * @example
 * indexAbi(erc20Abi).functions.get("0xa9059cbb")?.[0].name; // "transfer"
 */
export function indexAbi(abi: Abi): AbiIndex {
  const known = indexes.get(abi);
  if (known) return known;
  const functions = new Map<Hex, AbiFunction[]>();
  const events = new Map<Hex, AbiEvent[]>();
  const errors = new Map<Hex, AbiError[]>();
  const seen = new Set<string>();
  const add = <T extends AbiFunction | AbiEvent | AbiError>(into: Map<Hex, T[]>, selector: Hex, item: T) => {
    const key = JSON.stringify([item.type, item.name, item.inputs.map(shape)]);
    if (seen.has(key)) return;
    seen.add(key);
    into.set(selector, [...(into.get(selector) ?? []), item]);
  };
  for (const item of abi) {
    if (item.type === "function") add(functions, toFunctionSelector(item), item);
    else if (item.type === "event" && !item.anonymous) add(events, toEventSelector(item), item);
    else if (item.type === "error") add(errors, toFunctionSelector(formatAbiItem(item)), item);
  }
  const index = { functions, events, errors };
  indexes.set(abi, index);
  return index;
}

/** The built-in ABIs indexed together, in {@link builtinAbis} order. */
export const builtinAbiIndex: AbiIndex = indexAbi(builtinAbis.flatMap(({ abi }) => abi));

/**
 * The events of an index that can have produced a log: same selector, and as many indexed parameters
 * as the log has topics after the selector. That tells ERC-20's `Transfer` (two indexed) from ERC-721's
 * (three), which share the selector.
 *
 * @example
 * eventsOfLog(builtinAbiIndex, [transferTopic, from, to, tokenId])[0].inputs[2].name; // "tokenId"
 */
export function eventsOfLog(index: AbiIndex, topics: readonly Hex[]): AbiEvent[] {
  const [selector] = topics;
  if (selector === undefined) return [];
  const indexedCount = topics.length - 1;
  return (index.events.get(selector.toLowerCase() as Hex) ?? []).filter(
    (event) => event.inputs.filter((input) => input.indexed).length === indexedCount,
  );
}

/** What decoding reads of a parameter; artifacts differ from viem's ABIs in `internalType` and key order. */
function shape(parameter: AbiParameter): unknown {
  const { name, type } = parameter;
  const indexed = "indexed" in parameter && parameter.indexed === true;
  return [name ?? "", type, indexed, "components" in parameter ? parameter.components.map(shape) : []];
}
