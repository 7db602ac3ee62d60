import { type Address, checksumAddress } from "viem";
import type { FindAddressesReturnType } from "../../db/queries/addresses.ts";
import type { InstanceColumns, TokenRow } from "../../db/queries/token-balances.ts";
import { mediaUrls } from "../../indexer/fetch-token-metadata.ts";
import type { Page } from "../paging.ts";
import { type AddressView, renderAddress } from "./address.ts";

/** Blockscout's token object (BSW views/api/v2/token_view.ex), with the older `address` and `holders` too. */
export type TokenView<Count = string> = {
  address_hash: Address;
  address: Address;
  name: string | null;
  symbol: string | null;
  decimals: string | null;
  type: string;
  holders_count: Count;
  holders: Count;
  total_supply: string | null;
  exchange_rate: null;
  circulating_market_cap: null;
  circulating_supply: null;
  volume_24h: null;
  icon_url: null;
  reputation: "ok";
};

/**
 * Renders a token found with `findTokens`, or null for none. `holders_count` is a string, as Blockscout
 * sends it; `{ holdersCountAsInteger: true }` makes it a number (the interface document's form inside the
 * items of the address tokens list).
 */
export function renderToken(token: TokenRow | null | undefined): TokenView | null;
export function renderToken(
  token: TokenRow | null | undefined,
  options: { holdersCountAsInteger: true },
): TokenView<number> | null;
export function renderToken(
  token: TokenRow | null | undefined,
  options: { holdersCountAsInteger?: boolean } = {},
): TokenView<string | number> | null {
  if (!token) return null;
  const address = checksumAddress(token.address as Address);
  const count = options.holdersCountAsInteger ? token.holders_count : String(token.holders_count);
  return {
    address_hash: address,
    address,
    name: token.name,
    symbol: token.symbol,
    decimals: token.decimals === null ? null : String(token.decimals),
    type: token.type,
    holders_count: count,
    holders: count,
    total_supply: token.total_supply,
    exchange_rate: null,
    circulating_market_cap: null,
    circulating_supply: null,
    volume_24h: null,
    icon_url: null,
    reputation: "ok",
  };
}

export type TokenInstanceView = {
  id: string;
  is_unique: boolean | null;
  holder_address_hash: Address | null;
  owner: AddressView | null;
  token: TokenView | null;
  metadata: Record<string, unknown> | null;
  image_url: string | null;
  animation_url: string | null;
  external_app_url: string | null;
  media_url: string | null;
  media_type: null;
  thumbnails: null;
};

export type RenderTokenInstanceParameters = {
  id: string;
  /** The stored instance; `has_instance` false renders an instance without metadata. */
  instance: InstanceColumns;
  /** Lowercase hex address of the holder the instance is listed for, if any. */
  holder: string | null;
  token: TokenView | null;
  addresses: FindAddressesReturnType;
  /** Gateway the `ipfs://` media links are shown through (`ApiContext.ipfsPublicGateway`). */
  ipfsPublicGateway: string;
};

/**
 * Renders a token instance (BSW token_view.ex `prepare_token_instance`). The owner is the holder when the
 * id is unique (one unit, one holder), else null. Metadata that could not be fetched renders as null;
 * the URLs are read from the metadata as Blockscout does (`image_url`/`image`/`properties.image`,
 * `animation_url`, `external_url`; `ipfs://` and `ar://` become gateway URLs, `ipfs://` through
 * `ipfsPublicGateway`).
 */
export function renderTokenInstance({
  id,
  instance,
  holder,
  token,
  addresses,
  ipfsPublicGateway,
}: RenderTokenInstanceParameters): TokenInstanceView {
  const stored = instance.has_instance && isObject(instance.metadata) ? instance.metadata : null;
  // A recorded failure shows as Blockscout shows it: `{"error": ...}` in place of the metadata.
  const metadata =
    stored ?? (instance.has_instance && instance.metadata_error ? { error: instance.metadata_error } : null);
  const media = mediaUrls(stored, { ipfsGateway: ipfsPublicGateway });
  return {
    id,
    is_unique: instance.is_unique,
    holder_address_hash: holder === null ? null : checksumAddress(holder as Address),
    owner: instance.is_unique && holder !== null ? renderAddress(holder, addresses) : null,
    token,
    metadata,
    ...media,
    media_url: stored && mediaUrlOf(stored),
    media_type: null,
    thumbnails: null,
  };
}

/** The media reference as the metadata gives it (no gateway mapping): image first, then animation. */
function mediaUrlOf(metadata: Record<string, unknown>): string | null {
  const properties = isObject(metadata.properties) ? metadata.properties : {};
  for (const candidate of [metadata.image_url, metadata.image, properties.image, metadata.animation_url]) {
    if (typeof candidate === "string") return candidate.trim() === "" ? null : candidate;
  }
  return null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A uint256 to be written into JSON as a number with all its digits (a JS number would round it). */
export class ExactNumber {
  readonly digits: string;

  constructor(digits: string) {
    if (!/^-?[0-9]+$/.test(digits)) throw new TypeError(`not an integer: ${digits}`);
    this.digits = digits;
  }
}

/**
 * The JSON text of a list page whose `next_page_params` holds `ExactNumber`s: those are written as bare
 * digits, everything else as `JSON.stringify` writes it.
 */
export function pageJson(page: Page<unknown>): string {
  const cursor = page.next_page_params;
  const cursorJson =
    cursor === null
      ? "null"
      : `{${Object.entries(cursor)
          .map(
            ([key, value]) =>
              `${JSON.stringify(key)}:${value instanceof ExactNumber ? value.digits : JSON.stringify(value ?? null)}`,
          )
          .join(",")}}`;
  return `{"items":${JSON.stringify(page.items)},"next_page_params":${cursorJson}}`;
}
