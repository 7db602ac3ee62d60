import { type Address, checksumAddress } from "viem";
import type { AddressInfo, FindAddressesReturnType } from "../../db/queries/addresses.ts";

/** Blockscout's address object (BSW views/api/v2/helper.ex), the superset of the interface document's. */
export type AddressView = {
  hash: Address;
  is_contract: boolean;
  is_verified: boolean | null;
  name: string | null;
  implementation_name: string | null;
  implementations: { address_hash: Address; address: Address; name: string | null }[];
  proxy_type: string | null;
  ens_domain_name: string | null;
  metadata: null;
  is_scam: boolean;
  reputation: "ok";
  private_tags: never[];
  watchlist_names: never[];
  public_tags: never[];
};

// A page's renders of one address are one object, kept with the page's lookup: a page of transactions and
// their transfers names the same few addresses hundreds of times, and each render checksums the hash.
const renderedOfPage = new WeakMap<FindAddressesReturnType, Map<string, AddressView>>();

/**
 * Renders the address object for a lowercase hex address, or null for no address; the same object for
 * the same address and lookup. An address never
 * seen on chain renders with `is_verified: null`, as Blockscout does when nothing but the hash is known;
 * an imported ABI makes it verified and named, and a proxy names its implementation. An EIP-1167 clone or an
 * EIP-7702 delegation has no code of its own to verify: as in Blockscout, it is verified when its
 * implementation is.
 */
export function renderAddress(hash: string | null, known: FindAddressesReturnType): AddressView | null {
  if (hash === null) return null;
  let rendered = renderedOfPage.get(known);
  if (rendered === undefined) {
    rendered = new Map();
    renderedOfPage.set(known, rendered);
  }
  const done = rendered.get(hash);
  if (done !== undefined) return done;
  const info: AddressInfo | undefined = known.get(hash);
  // Blockscout sends the implementation's address under both names (`address` is the older one).
  const implementations = (info?.implementations ?? []).map((implementation) => ({
    address_hash: checksumAddress(implementation.address),
    address: checksumAddress(implementation.address),
    name: implementation.name,
  }));
  const view: AddressView = {
    hash: checksumAddress(hash as Address),
    is_contract: info?.is_contract ?? false,
    is_verified: info ? info.is_verified || verifiedAsProxy(info) : null,
    name: info?.name ?? null,
    implementation_name: implementations[0]?.name ?? null,
    implementations,
    proxy_type: info?.proxy_type ?? null,
    ens_domain_name: null,
    metadata: null,
    is_scam: false,
    reputation: "ok",
    private_tags: [],
    watchlist_names: [],
    public_tags: [],
  };
  rendered.set(hash, view);
  return view;
}

/** Proxies whose own code is only a pointer to their implementation (Blockscout's `verified_as_proxy?`). */
const pointerProxies: ReadonlySet<string> = new Set(["eip1167", "eip7702"]);

function verifiedAsProxy(info: AddressInfo): boolean {
  return (
    info.proxy_type !== null &&
    pointerProxies.has(info.proxy_type) &&
    info.implementations.length > 0 &&
    info.implementations.every((implementation) => implementation.is_verified)
  );
}
