import type { LookupAddress, LookupAllOptions } from "node:dns";
import { lookup } from "node:dns/promises";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { Agent, buildConnector } from "undici";

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

/** Resolves a name to all its addresses, as `dns.promises.lookup` does with `all: true`. */
export type ResolveName = (hostname: string, options: LookupAllOptions) => Promise<LookupAddress[]>;

/** A connection not made because its host is, or resolves to, an address token URIs may not reach. */
export class RefusedAddressError extends Error {
  override name = "RefusedAddressError";
}

/** The error refusing `host` at `address`, or null when `address` is not in `refused`. */
function refusal(host: string, address: string, refused: BlockList): RefusedAddressError | null {
  if (!refused.check(address, isIP(address) === 4 ? "ipv4" : "ipv6")) return null;
  return new RefusedAddressError(`host ${host} is ${address}, an address token URIs may not reach`);
}

/**
 * An undici dispatcher whose connections reach no address in `refused`. The check is made as each
 * connection is opened, on the addresses it is opened to: a name checked by a lookup of its own before
 * the fetch could resolve to another address when the fetch looks it up again (DNS rebinding). A name
 * is refused if any of its addresses is, since the connection may fall back to any of them. IPv4 written
 * inside IPv6 (`::ffff:127.0.0.1`) counts as the IPv4 address, and URL parsing has already turned
 * `127.1` or `2130706433` into `127.0.0.1`. A refused connection fails the fetch with a
 * {@link RefusedAddressError} as its `cause`.
 *
 * @param resolve How names are resolved; `dns.promises.lookup`, as Node's own connections do, by default.
 */
export function refusingAgent(refused: BlockList, resolve: ResolveName = lookup): Agent {
  const checkedLookup: LookupFunction = (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }).then(
      (answers) => {
        for (const { address } of answers) {
          const error = refusal(hostname, address, refused);
          if (error) return callback(error, []);
        }
        const [first] = answers;
        // dns.lookup fails a name without addresses rather than answering none; a resolver given in its
        // place is held to the same.
        if (!first)
          return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), []);
        if (options.all) return callback(null, answers);
        callback(null, first.address, first.family);
      },
      (error) => callback(error, []),
    );
  };
  const connectByName = buildConnector({ lookup: checkedLookup });
  return new Agent({
    connect(options, callback) {
      // Node connects to an address given by number without a lookup, so it is checked here instead.
      const error = isIP(options.hostname) ? refusal(options.hostname, options.hostname, refused) : null;
      if (error) return callback(error, null);
      connectByName(options, callback);
    },
  });
}
