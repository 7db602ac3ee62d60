import {
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  type Hex,
  hexToString,
  parseAbi,
  trim,
} from "viem";
import { callEach } from "../rpc/call-each.ts";
import type { RpcClient } from "../rpc/client.ts";
import type { StateBlock } from "../rpc/read-state.ts";

const abi = parseAbi([
  "function name() view returns (string)",
  "function symbol() view returns (string)",
  "function decimals() view returns (uint256)",
  "function totalSupply() view returns (uint256)",
]);
const bytes32Abi = parseAbi(["function name() view returns (bytes32)"]);
/**
 * Names and symbols are cut to this many bytes, as Blockscout cuts them: a contract can answer any length,
 * and each page showing the token would carry all of it, twice per token transfer.
 */
const maxTextBytes = 255;
const erc165Abi = parseAbi(["function supportsInterface(bytes4) view returns (bool)"]);
/** ERC-165 interface ids asked of every new token. */
const interfaceIds = { supportsErc721: "0x80ac58cd", supportsErc1155: "0xd9b67a26" } as const;

export type TokenRead = {
  address: Address;
  /** Also read name, symbol, decimals and the ERC-165 answers (a token new to the index); else only the supply. */
  describe: boolean;
};

export type ReadTokenMetadataParameters = {
  /** The block every field is read at. */
  block: StateBlock;
  tokens: TokenRead[];
};

export type TokenMetadata = {
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  totalSupply: string | null;
  /** ERC-165 answers; null where the contract does not implement `supportsInterface`. */
  supportsErc721: boolean | null;
  supportsErc1155: boolean | null;
  /** Whether name, symbol, decimals and the ERC-165 answers were read (else they are null unread). */
  described: boolean;
};

type TokenField = "name" | "symbol" | "decimals" | "totalSupply" | keyof typeof interfaceIds;

/** Readings of tokens, keyed by lowercase address. */
export type TokenReadings = Map<Address, TokenMetadata>;

/**
 * Reads tokens' name, symbol, decimals, ERC-165 interfaces and total supply at one block, many calls to
 * an `eth_call` (see callEach). A contract that reverts, lacks the function or answers something
 * unreadable gets null for that field; names and symbols may be strings or `bytes32` (as older tokens
 * return them).
 */
export async function readTokenMetadata(
  client: RpcClient,
  { block, tokens }: ReadTokenMetadataParameters,
): Promise<TokenReadings> {
  const jobs: { address: Address; field: TokenField }[] = [];
  for (const read of tokens) {
    if (read.describe) {
      for (const field of ["name", "symbol", "decimals", "supportsErc721", "supportsErc1155"] as const)
        jobs.push({ address: read.address, field });
    }
    jobs.push({ address: read.address, field: "totalSupply" });
  }
  const result: TokenReadings = new Map(
    tokens.map((read) => [
      read.address,
      {
        name: null,
        symbol: null,
        decimals: null,
        totalSupply: null,
        supportsErc721: null,
        supportsErc1155: null,
        described: read.describe,
      },
    ]),
  );
  const answers = await callEach(client, {
    block,
    calls: jobs.map((job) => ({
      to: job.address,
      data:
        job.field === "supportsErc721" || job.field === "supportsErc1155"
          ? encodeFunctionData({
              abi: erc165Abi,
              functionName: "supportsInterface",
              args: [interfaceIds[job.field]],
            })
          : encodeFunctionData({ abi, functionName: job.field }),
    })),
  });
  jobs.forEach((job, i) => {
    const answer = answers[i];
    if (typeof answer !== "string") return;
    (result.get(job.address) as Record<string, unknown>)[job.field] = decodeField(job.field, answer);
  });
  return result;
}

function decodeField(field: TokenField, data: Hex): string | number | boolean | null {
  try {
    if (field === "supportsErc721" || field === "supportsErc1155") {
      // Exactly one word: a fallback function answering anything else is no ERC-165 answer.
      return data.length === 66
        ? decodeFunctionResult({ abi: erc165Abi, functionName: "supportsInterface", data })
        : null;
    }
    if (field === "name" || field === "symbol") return decodeText(data);
    const value = decodeFunctionResult({ abi, functionName: "totalSupply", data });
    if (field === "decimals") return value <= 255n ? Number(value) : null;
    return value.toString();
  } catch {
    return null;
  }
}

/**
 * A string return value, cut to `maxTextBytes` of UTF-8 at a character's start, else a `bytes32` one
 * (trailing zero bytes dropped), else null.
 */
function decodeText(data: Hex): string | null {
  try {
    const text = printable(decodeFunctionResult({ abi, functionName: "name", data }));
    return text === null ? null : truncateUtf8(text, maxTextBytes);
  } catch {
    if (data.length !== 66) return null;
    const raw = decodeFunctionResult({ abi: bytes32Abi, functionName: "name", data });
    return printable(hexToString(trim(raw, { dir: "right" })));
  }
}

/** The longest start of `text` that fits `maxBytes` of UTF-8, ending before a character, never inside it. */
function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // A continuation byte (10xxxxxx) at the cut means the character there started before it.
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(bytes.subarray(0, end));
}

function printable(text: string): string | null {
  // Control characters mean the bytes were not text; the empty string is no name either.
  return text.length > 0 && [...text].every((char) => char.charCodeAt(0) >= 0x20) ? text : null;
}
