import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/**
 * Addresses no token URI may lead to: the private, loopback, link-local (the cloud metadata service at
 * 169.254.169.254), shared, documentation, multicast and reserved ranges, as Blockscout keeps its token
 * instance fetcher from them. A token URI is whatever a contract returns, so anyone could otherwise have
 * the indexer read a service inside its network and the API publish the answer as metadata.
 */
const reservedRanges = [
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.88.99.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "224.0.0.0/4",
  "240.0.0.0/4",
  "::/128",
  "::1/128",
  "64:ff9b::/96",
  "fc00::/7",
  "fe80::/10",
  "ff00::/8",
];

/** A `range/prefix` in CIDR notation, IPv4 or IPv6, or null when it is not one. */
export function parseCidr(text: string): { address: string; prefix: number; family: "ipv4" | "ipv6" } | null {
  const match = /^([^/]+)\/(\d{1,3})$/.exec(text.trim());
  if (!match) return null;
  const [, address = "", bits = ""] = match;
  const version = isIP(address);
  const prefix = Number(bits);
  if (version === 0 || prefix > (version === 4 ? 32 : 128)) return null;
  return { address, prefix, family: version === 4 ? "ipv4" : "ipv6" };
}

/** The reserved ranges and `extra` (CIDR ranges the operator adds) as one list to check addresses against. */
export function refusedAddresses(extra: readonly string[] = []): BlockList {
  const list = new BlockList();
  for (const range of [...reservedRanges, ...extra]) {
    const cidr = parseCidr(range);
    if (!cidr) throw new Error(`not a CIDR range: ${range}`);
    list.addSubnet(cidr.address, cidr.prefix, cidr.family);
  }
  return list;
}

/**
 * Why `url`'s host may not be fetched: it is, or its name resolves to, an address in `refused`. Null
 * when every address it resolves to is allowed. IPv4 written inside IPv6 (`::ffff:127.0.0.1`) counts as
 * the IPv4 address, and URL parsing has already turned `127.1` or `2130706433` into `127.0.0.1`.
 * @throws what resolving the name throws (a name that does not resolve, for now or for good).
 */
export async function refusedHost(url: URL, refused: BlockList): Promise<string | null> {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const addresses = isIP(host)
    ? [host]
    : (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
  for (const address of addresses) {
    if (refused.check(address, isIP(address) === 4 ? "ipv4" : "ipv6"))
      return `host ${host} is ${address}, an address token URIs may not reach`;
  }
  return null;
}
