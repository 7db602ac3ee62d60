import { type Address, decodeAbiParameters, type Hex, hexToBigInt, toEventSelector } from "viem";

export type TokenTransferType = "ERC-20" | "ERC-721" | "ERC-1155";

/** A token movement as one log states it; an ERC-1155 batch stays one transfer with parallel arrays. */
export type TokenTransfer = {
  type: TokenTransferType;
  token: Address;
  from: Address;
  to: Address;
  /** ERC-721 and ERC-1155: the ids moved; empty for ERC-20. */
  tokenIds: bigint[];
  /** ERC-20: one amount; ERC-1155: one per id; empty for ERC-721. */
  amounts: bigint[];
};

export const transferTopic = toEventSelector("Transfer(address,address,uint256)");
/** ERC-404 v1 (Pandora-style) announces its fungible side with this event instead of ERC-20's Transfer. */
export const erc20TransferTopic = toEventSelector("ERC20Transfer(address,address,uint256)");
export const transferSingleTopic = toEventSelector("TransferSingle(address,address,address,uint256,uint256)");
export const transferBatchTopic = toEventSelector(
  "TransferBatch(address,address,address,uint256[],uint256[])",
);

export type DecodeTokenTransferParameters = { address: string; topics: (string | null)[]; data: string };

/**
 * Reads a token transfer from a log: ERC-20 `Transfer` (3 topics, amount in data; also ERC-404 v1's
 * `ERC20Transfer`), ERC-721 `Transfer` (4 topics, id indexed), ERC-1155 `TransferSingle` and `TransferBatch`. Returns null for a log that is
 * not a transfer, and `"malformed"` for one whose topic matches but whose layout does not, so callers
 * can count those instead of failing on them.
 */
export function decodeTokenTransfer({
  address,
  topics,
  data,
}: DecodeTokenTransferParameters): TokenTransfer | "malformed" | null {
  const [topic0, ...indexed] = topics.filter((topic): topic is string => topic !== null);
  const token = address.toLowerCase() as Address;
  if (topic0 === transferTopic || topic0 === erc20TransferTopic) {
    if (indexed.length === 2 && data.length === 66 && indexed.every(isAddressTopic)) {
      return {
        type: "ERC-20",
        token,
        from: topicAddress(indexed[0]),
        to: topicAddress(indexed[1]),
        tokenIds: [],
        amounts: [hexToBigInt(data as Hex)],
      };
    }
    const nftForm = topic0 === transferTopic && indexed.length === 3 && data === "0x";
    if (nftForm && isAddressTopic(indexed[0]) && isAddressTopic(indexed[1])) {
      return {
        type: "ERC-721",
        token,
        from: topicAddress(indexed[0]),
        to: topicAddress(indexed[1]),
        tokenIds: [hexToBigInt(indexed[2] as Hex)],
        amounts: [],
      };
    }
    return "malformed";
  }
  if (topic0 !== transferSingleTopic && topic0 !== transferBatchTopic) return null;
  if (indexed.length !== 3 || !indexed.every(isAddressTopic)) return "malformed";
  const [, fromTopic, toTopic] = indexed;
  try {
    if (topic0 === transferSingleTopic) {
      if (data.length !== 130) return "malformed";
      const [id, value] = decodeAbiParameters([{ type: "uint256" }, { type: "uint256" }], data as Hex);
      return {
        type: "ERC-1155",
        token,
        from: topicAddress(fromTopic),
        to: topicAddress(toTopic),
        tokenIds: [id],
        amounts: [value],
      };
    }
    const [ids, values] = decodeAbiParameters([{ type: "uint256[]" }, { type: "uint256[]" }], data as Hex);
    if (ids.length !== values.length || ids.length === 0) return "malformed";
    return {
      type: "ERC-1155",
      token,
      from: topicAddress(fromTopic),
      to: topicAddress(toTopic),
      tokenIds: [...ids],
      amounts: [...values],
    };
  } catch {
    return "malformed";
  }
}

function isAddressTopic(topic: string): boolean {
  return topic.length === 66 && /^0x0{24}/.test(topic);
}

function topicAddress(topic: string): Address {
  return `0x${topic.slice(26)}`.toLowerCase() as Address;
}
