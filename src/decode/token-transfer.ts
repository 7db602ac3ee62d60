import { type Address, decodeAbiParameters, type Hex, hexToBigInt, toEventSelector, zeroAddress } from "viem";

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
  /**
   * Set on the mint or burn a WETH-style `Deposit` or `Withdrawal` states: such a wrapper emits no
   * `Transfer` when it wraps or unwraps, and it moves balances only of ERC-20 tokens.
   */
  wrapping?: true;
};

export const transferTopic = toEventSelector("Transfer(address,address,uint256)");
/** ERC-404 v1 (Pandora-style) announces its fungible side with this event instead of ERC-20's Transfer. */
export const erc20TransferTopic = toEventSelector("ERC20Transfer(address,address,uint256)");
/**
 * ERC-404 variants that announce their fungible side with `ERC20Transfer` announce their NFT side with
 * this event instead of ERC-721's Transfer.
 */
export const erc721TransferTopic = toEventSelector("ERC721Transfer(address,address,uint256)");
export const transferSingleTopic = toEventSelector("TransferSingle(address,address,address,uint256,uint256)");
export const transferBatchTopic = toEventSelector(
  "TransferBatch(address,address,address,uint256[],uint256[])",
);

/** WETH9 wraps with this event and emits no `Transfer`: a mint of `wad` to `dst`. */
export const depositTopic = toEventSelector("Deposit(address,uint256)");
/** WETH9 unwraps with this event and emits no `Transfer`: a burn of `wad` from `src`. */
export const withdrawalTopic = toEventSelector("Withdrawal(address,uint256)");

export type DecodeTokenTransferParameters = { address: string; topics: (string | null)[]; data: string };

/**
 * Reads a token transfer from a log: ERC-20 `Transfer` (3 topics, amount in data; also ERC-404 v1's
 * `ERC20Transfer`), ERC-721 `Transfer` (4 topics, id indexed; also ERC-404's `ERC721Transfer`, and
 * CryptoKitties' `Transfer` with nothing indexed: 1 topic, from, to and id in 96 bytes of data), ERC-1155
 * `TransferSingle` and `TransferBatch`, and WETH-style `Deposit` and `Withdrawal` (2 topics, amount in
 * data) as an ERC-20 mint and burn marked `wrapping`, as Blockscout reads them. Returns null for a log
 * that is not a transfer, and `"malformed"` for one whose topic matches but whose layout does not, so
 * callers can count those instead of failing on them. A `Deposit` or `Withdrawal` of another layout is
 * null: other contracts use those names for other events.
 */
export function decodeTokenTransfer({
  address,
  topics,
  data,
}: DecodeTokenTransferParameters): TokenTransfer | "malformed" | null {
  const [topic0, ...indexed] = topics.filter((topic): topic is string => topic !== null);
  const token = address.toLowerCase() as Address;
  if (topic0 === depositTopic || topic0 === withdrawalTopic) {
    const [holderTopic, ...extra] = indexed;
    if (!isAddressTopic(holderTopic) || extra.length > 0 || data.length !== 66) return null;
    const holder = topicAddress(holderTopic);
    return {
      type: "ERC-20",
      token,
      from: topic0 === depositTopic ? zeroAddress : holder,
      to: topic0 === depositTopic ? holder : zeroAddress,
      tokenIds: [],
      amounts: [hexToBigInt(data as Hex)],
      wrapping: true,
    };
  }
  if (topic0 === transferTopic && indexed.length === 0) {
    if (data.length !== 2 + 3 * 64) return "malformed";
    // Words, not addresses: viem drops an address word's upper 12 bytes unseen, and they must be zero
    // as in a topic.
    const [fromWord, toWord, id] = decodeAbiParameters(
      [{ type: "bytes32" }, { type: "bytes32" }, { type: "uint256" }],
      data as Hex,
    );
    if (!isAddressTopic(fromWord) || !isAddressTopic(toWord)) return "malformed";
    return erc721Transfer(token, fromWord, toWord, id);
  }
  if (topic0 === transferTopic || topic0 === erc20TransferTopic || topic0 === erc721TransferTopic) {
    // ERC-20 indexes `from` and `to`; ERC-721 also the id.
    const [fromTopic, toTopic, idTopic, ...extra] = indexed;
    if (!isAddressTopic(fromTopic) || !isAddressTopic(toTopic)) return "malformed";
    if (topic0 !== erc721TransferTopic && idTopic === undefined && data.length === 66) {
      return {
        type: "ERC-20",
        token,
        from: topicAddress(fromTopic),
        to: topicAddress(toTopic),
        tokenIds: [],
        amounts: [hexToBigInt(data as Hex)],
      };
    }
    if (topic0 !== erc20TransferTopic && idTopic !== undefined && extra.length === 0 && data === "0x") {
      return erc721Transfer(token, fromTopic, toTopic, hexToBigInt(idTopic as Hex));
    }
    return "malformed";
  }
  if (topic0 !== transferSingleTopic && topic0 !== transferBatchTopic) return null;
  const [operatorTopic, fromTopic, toTopic, ...extra] = indexed;
  const addressed = isAddressTopic(operatorTopic) && isAddressTopic(fromTopic) && isAddressTopic(toTopic);
  if (!addressed || extra.length > 0) return "malformed";
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

function erc721Transfer(token: Address, fromWord: string, toWord: string, id: bigint): TokenTransfer {
  return {
    type: "ERC-721",
    token,
    from: topicAddress(fromWord),
    to: topicAddress(toWord),
    tokenIds: [id],
    amounts: [],
  };
}

/** Whether `topic` is present and holds an address: 32 bytes, the upper 12 of them zero. */
function isAddressTopic(topic: string | undefined): topic is string {
  if (topic === undefined) return false;
  return topic.length === 66 && /^0x0{24}/.test(topic);
}

function topicAddress(topic: string): Address {
  return `0x${topic.slice(26)}`.toLowerCase() as Address;
}
