import type { BlockList } from "node:net";
import { type Agent, type Response, fetch as undiciFetch } from "undici";
import { anySignal } from "../signals.ts";
import { RefusedAddressError, type ResolveName, refusedAddresses, refusingAgent } from "./metadata-hosts.ts";

/** The IPFS gateway used when none is configured; Blockscout's public default too. */
export const defaultIpfsGateway = "https://ipfs.io/ipfs/";

const arweaveGateway = "https://arweave.net/";

// CIDv0 (base58 "Qm…") or CIDv1 in base32 ("b…"), the forms Blockscout accepts as IPFS paths.
const cidPattern = /^(Qm[1-9A-HJ-NP-Za-km-z]{44}|b[a-z2-7]{7,})(\/.*)?$/;

/** Parameters of {@link resolveTokenUri}. */
export type ResolveTokenUriParameters = {
  /** Base URL of an IPFS HTTP gateway, e.g. `https://ipfs.io/ipfs/`; the CID and path are appended. */
  ipfsGateway: string;
};

/** Return type of {@link resolveTokenUri}: the URI to fetch. */
export type ResolveTokenUriReturnType = string;

/**
 * Turns the URI a contract returns into the one to fetch: ERC-1155's `{id}` becomes the id as 64
 * lowercase hex digits without `0x` (as the standard says), and `ipfs://CID/path`, `ipfs://ipfs/CID`,
 * a bare CID and `ar://ID` go through HTTP gateways. Anything else is returned unchanged (trimmed).
 *
 * @param tokenId The instance's id, or `undefined` to leave `{id}` alone: ERC-721 does not define the
 *   placeholder and Blockscout substitutes it for ERC-1155 only.
 *
 * @example
 * resolveTokenUri("ipfs://QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG/{id}.json", 10n, {
 *   ipfsGateway: "https://ipfs.io/ipfs/",
 * });
 * // "https://ipfs.io/ipfs/QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG/000…000a.json"
 */
export function resolveTokenUri(
  uri: string,
  tokenId: bigint | undefined,
  { ipfsGateway }: ResolveTokenUriParameters,
): ResolveTokenUriReturnType {
  let resolved = uri.trim();
  if (tokenId !== undefined) resolved = resolved.replaceAll("{id}", erc1155HexId(tokenId));
  const lower = resolved.toLowerCase();
  if (lower.startsWith("ipfs://")) {
    // `ipfs://ipfs/CID` is a common mistake for `ipfs://CID`; both mean the same content.
    const path = resolved.slice(lower.startsWith("ipfs://ipfs/") ? "ipfs://ipfs/".length : "ipfs://".length);
    return joinGateway(ipfsGateway, path);
  }
  if (lower.startsWith("ar://")) return joinGateway(arweaveGateway, resolved.slice("ar://".length));
  if (cidPattern.test(resolved)) return joinGateway(ipfsGateway, resolved);
  return resolved;
}

/** The ERC-1155 form of an id in URIs: 64 lowercase hex digits, no `0x`. */
function erc1155HexId(tokenId: bigint): string {
  return tokenId.toString(16).padStart(64, "0");
}

function joinGateway(gateway: string, path: string): string {
  return `${gateway.endsWith("/") ? gateway : `${gateway}/`}${path.replace(/^\/+/, "")}`;
}

/** Parameters of {@link fetchTokenMetadata}. */
export type FetchTokenMetadataParameters = {
  /** Base URL of an IPFS HTTP gateway (see {@link resolveTokenUri}). */
  ipfsGateway: string;
  /** Longest wait for an HTTP answer, headers and body together. */
  timeoutMs: number;
  /** Largest HTTP body read; a longer one is abandoned. */
  maxBytes: number;
  /**
   * ERC-1155 instances: the id substituted for `{id}` in the URI and, as Blockscout does, in the
   * metadata's strings. Leave out for ERC-721.
   */
  tokenId?: bigint;
  /**
   * The fetch implementation (tests); undici's by default. It is given an undici `dispatcher` that checks
   * where connections go, which Node's global fetch, built on a copy of undici of its own (version 6 in
   * Node 20), is not sure to take.
   */
  fetch?: typeof undiciFetch;
  /**
   * Addresses a token URI, or a redirect, may not lead to (see {@link refusedAddresses}); the reserved
   * ranges by default, none with null. The gateways' own URLs are the operator's and are not checked.
   */
  refused?: BlockList | null;
  /** How names are resolved for the connections checked against `refused` (tests); `dns.lookup` by default. */
  resolve?: ResolveName;
  /** Stops the fetch: once it aborts, its reason is thrown, as no failure of the URI's. */
  signal?: AbortSignal;
};

/**
 * Return type of {@link fetchTokenMetadata}: the metadata object, or a short human reason it could not
 * be had. `retryable` says whether asking again later can help (timeouts, 408, 429, 5xx, network failures).
 */
export type FetchTokenMetadataReturnType =
  | { metadata: Record<string, unknown> }
  | { error: string; retryable: boolean };

/**
 * Fetches and decodes the JSON metadata a token URI points at. Handles `data:` URIs (base64,
 * percent-encoded and `;utf8`), a URI that is the JSON itself, `ipfs://` and `ar://` through gateways,
 * and `http(s)` with a timeout, a body size cap and a content-type check. A URI answering an image or a
 * video (by content type) yields `{ image }` or `{ animation_url }` pointing at it, as Blockscout does.
 * Every failure is returned as `{ error }`; only `signal`'s reason is thrown, once it aborts.
 *
 * @example
 * const result = await fetchTokenMetadata("data:application/json;base64,eyJuYW1lIjoiQSJ9", {
 *   ipfsGateway: "https://ipfs.io/ipfs/",
 *   timeoutMs: 5_000,
 *   maxBytes: 1_000_000,
 * });
 * // { metadata: { name: "A" } }
 */
export async function fetchTokenMetadata(
  uri: string,
  {
    ipfsGateway,
    timeoutMs,
    maxBytes,
    tokenId,
    fetch: fetchImpl = undiciFetch,
    refused = defaultRefused,
    resolve,
    signal,
  }: FetchTokenMetadataParameters,
): Promise<FetchTokenMetadataReturnType> {
  const trimmed = uri.trim();
  if (trimmed === "") return fail("empty token URI");
  const guard = refused && guardFor(refused, resolve);
  const result = await fetchRaw(trimmed, {
    ipfsGateway,
    timeoutMs,
    maxBytes,
    tokenId,
    fetchImpl,
    guard,
    signal,
  });
  if ("error" in result || tokenId === undefined) return result;
  return { metadata: substituteId(result.metadata, erc1155HexId(tokenId)) as Record<string, unknown> };
}

type FetchRawParameters = Omit<FetchTokenMetadataParameters, "fetch" | "refused" | "resolve"> & {
  fetchImpl: typeof undiciFetch;
  /** The dispatcher that refuses connections to refused addresses; null when none are. */
  guard: Agent | null;
};

const defaultRefused = refusedAddresses();

// One dispatcher per list and resolver for the life of the process, so that its connections are reused
// from one token URI to the next.
const guards = new WeakMap<BlockList, Map<ResolveName | undefined, Agent>>();

function guardFor(refused: BlockList, resolve: ResolveName | undefined): Agent {
  const byResolver = guards.get(refused) ?? new Map<ResolveName | undefined, Agent>();
  guards.set(refused, byResolver);
  const guard = byResolver.get(resolve) ?? refusingAgent(refused, resolve);
  byResolver.set(resolve, guard);
  return guard;
}

/** Redirects followed for one token URI, each checked like the URI. */
const maxRedirects = 5;

async function fetchRaw(uri: string, parameters: FetchRawParameters): Promise<FetchTokenMetadataReturnType> {
  // Some contracts return the JSON itself rather than a URI to it.
  if (uri.startsWith("{")) return parseMetadata(uri);
  if (/^data:/i.test(uri)) return readDataUri(uri);
  const resolved = resolveTokenUri(uri, parameters.tokenId, parameters);
  let url: URL;
  try {
    url = new URL(resolved);
  } catch {
    return fail("invalid URI");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return fail(`unsupported URI scheme ${url.protocol}`);
  }
  // A URI the configured gateways serve is the operator's choice of host, which may be a private one.
  const viaGateway = resolved !== uri.trim() && !/^https?:/i.test(uri.trim());
  return fetchHttp(url, uri, { ...parameters, checkFirst: !viaGateway });
}

function fail(error: string, retryable = false): { error: string; retryable: boolean } {
  return { error, retryable };
}

/** `data:[<media type>][;base64],<data>` (RFC 2397). */
function readDataUri(uri: string): FetchTokenMetadataReturnType {
  const comma = uri.indexOf(",");
  if (comma < 0) return fail("invalid data: URI");
  const header = uri.slice("data:".length, comma);
  const payload = uri.slice(comma + 1);
  const [mediaType = "", ...options] = header.split(";").map((part) => part.trim());
  if (options.some((option) => option.toLowerCase() === "base64")) {
    // Buffer's decoder skips what is not base64; checking first turns garbage into a clear error.
    const compact = payload.replace(/\s+/g, "");
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact)) return fail("invalid base64 in data: URI");
    return interpretBody(mediaType || "text/plain", Buffer.from(compact, "base64"), uri);
  }
  // The plain form should be percent-encoded, but many contracts put raw JSON there, "%" and all.
  let text: string;
  try {
    text = decodeURIComponent(payload);
  } catch {
    text = payload;
  }
  return interpretBody(mediaType || "text/plain", Buffer.from(text, "utf8"), uri);
}

async function fetchHttp(
  first: URL,
  originalUri: string,
  {
    timeoutMs,
    maxBytes,
    fetchImpl,
    guard,
    checkFirst,
    signal: stop,
  }: FetchRawParameters & {
    checkFirst: boolean;
  },
): Promise<FetchTokenMetadataReturnType> {
  // One signal bounds the whole exchange: a server that sends headers and then trickles the body
  // times out too.
  const { signal, dispose } = anySignal([stop, AbortSignal.timeout(timeoutMs)]);
  try {
    let url = first;
    let response: Response;
    // Redirects are followed here, each target checked as the URI is: a public host may redirect to a
    // private one. The guard checks as it opens a connection; the first hop through the operator's
    // gateway goes out on undici's default dispatcher, unchecked.
    for (let redirects = 0; ; redirects++) {
      const checked = redirects > 0 || checkFirst;
      response = await fetchImpl(url, {
        headers: { accept: "application/json, text/plain;q=0.9, */*;q=0.8", "user-agent": "sextant" },
        redirect: "manual",
        signal,
        dispatcher: (checked && guard) || undefined,
      });
      const location = response.headers.get("location");
      if (response.status < 300 || response.status >= 400 || location === null) break;
      await response.body?.cancel().catch(() => {});
      if (redirects === maxRedirects) return fail(`more than ${maxRedirects} redirects`);
      url = new URL(location, url);
      if (url.protocol !== "http:" && url.protocol !== "https:")
        return fail(`redirected to an unsupported URI scheme ${url.protocol}`);
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      // A 408 is the server timing out, which passes as our own timeouts do; 429 and 5xx, load and outages.
      const status = response.status;
      return fail(`HTTP ${status}`, status === 408 || status === 429 || status >= 500);
    }
    const contentType = response.headers.get("content-type") ?? "";
    const mediaType = contentType.replace(/;.*$/s, "").trim().toLowerCase();
    if (isImage(mediaType) || isVideo(mediaType)) {
      await response.body?.cancel().catch(() => {});
      return interpretBody(mediaType, Buffer.alloc(0), originalUri);
    }
    if (!isJsonish(mediaType)) {
      await response.body?.cancel().catch(() => {});
      return fail(`unexpected content type ${mediaType}`);
    }
    const declared = Number(response.headers.get("content-length"));
    if (Number.isFinite(declared) && declared > maxBytes) {
      await response.body?.cancel().catch(() => {});
      return fail(`body larger than ${maxBytes} bytes`);
    }
    const body = await readCapped(response, maxBytes);
    if (body === undefined) return fail(`body larger than ${maxBytes} bytes`);
    return interpretBody(mediaType || "application/json", body, originalUri);
  } catch (error) {
    // Stopped by the caller, not failed by the server.
    stop?.throwIfAborted();
    return describeFetchError(error, timeoutMs);
  } finally {
    dispose();
  }
}

/** Reads the body chunk by chunk and gives up past `maxBytes`, so a huge answer costs no more than that. */
async function readCapped(response: Response, maxBytes: number): Promise<Buffer | undefined> {
  if (!response.body) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function describeFetchError(error: unknown, timeoutMs: number): { error: string; retryable: boolean } {
  // Checked by name: the DOMException may come from undici's realm rather than this one.
  const name = (error as { name?: string } | undefined)?.name;
  if (name === "TimeoutError" || name === "AbortError") {
    return fail(`timed out after ${timeoutMs} ms`, true);
  }
  // undici reports "fetch failed" with the socket error as the cause.
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  if (cause instanceof RefusedAddressError) return fail(cause.message);
  const reason = cause?.code ?? cause?.message ?? (error as Error | undefined)?.message ?? String(error);
  return fail(`request failed: ${reason}`.slice(0, 200), true);
}

function isImage(mediaType: string): boolean {
  return mediaType.startsWith("image/");
}

function isVideo(mediaType: string): boolean {
  return mediaType.startsWith("video/");
}

// IPFS gateways often label JSON text/plain or octet-stream, and some servers send no type at all;
// those are given a chance to parse. HTML (error and landing pages) never is metadata.
function isJsonish(mediaType: string): boolean {
  if (mediaType === "" || mediaType.includes("json")) return true;
  if (mediaType === "application/octet-stream") return true;
  return mediaType.startsWith("text/") && mediaType !== "text/html";
}

function interpretBody(mediaType: string, body: Buffer, uri: string): FetchTokenMetadataReturnType {
  const type = mediaType.toLowerCase();
  // Blockscout records a URI that points straight at media as metadata naming that media.
  if (isImage(type)) return { metadata: { image: uri } };
  if (isVideo(type)) return { metadata: { animation_url: uri } };
  if (!isJsonish(type)) return fail(`unexpected content type ${type}`);
  return parseMetadata(new TextDecoder("utf-8").decode(body));
}

/**
 * Deepest nesting of objects and arrays metadata may have. JSON.parse takes any depth, but the functions
 * that walk the metadata after it (the `{id}` substitution, the cleaning before it is stored,
 * JSON.stringify) overflow the stack some thousands of levels down, and PostgreSQL's jsonb refuses
 * ("stack depth limit exceeded") not much deeper: a few kilobytes of brackets would fail every round.
 * Real metadata nests a handful of levels.
 */
const maxNesting = 128;

function parseMetadata(text: string): FetchTokenMetadataReturnType {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    return fail("invalid JSON");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return fail("metadata is not a JSON object");
  }
  if (nestedDeeperThan(value, maxNesting)) return fail("metadata nested too deeply");
  return { metadata: value as Record<string, unknown> };
}

/** Whether objects and arrays in `value` nest more than `limit` levels; walked without recursion. */
function nestedDeeperThan(value: object, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== "object") continue;
    if (depth > limit) return true;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}

function substituteId(value: unknown, hexId: string): unknown {
  if (typeof value === "string") return value.replaceAll("{id}", hexId);
  if (Array.isArray(value)) return value.map((item) => substituteId(item, hexId));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substituteId(item, hexId)]));
  }
  return value;
}

/** Parameters of {@link mediaUrls}. */
export type MediaUrlsParameters = {
  /** Gateway for `ipfs://` media links; Blockscout's public gateway by default. */
  ipfsGateway?: string;
};

/** Return type of {@link mediaUrls}: the API's `image_url`, `animation_url` and `external_app_url`. */
export type MediaUrlsReturnType = {
  image_url: string | null;
  animation_url: string | null;
  external_app_url: string | null;
};

/**
 * Derives a token instance's media links from its metadata the way Blockscout's API does: `image_url`
 * from `image_url`, else `image`, else `properties.image` (an object gives its `description`, a list
 * its first entry); `animation_url` from `animation_url`; both re-encoded and with `ipfs://` and
 * `ar://` mapped to gateways. `external_app_url` is `external_url` as given. Blank values give null.
 *
 * @example
 * mediaUrls({ image: "ipfs://QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG/1.png" });
 * // { image_url: "https://ipfs.io/ipfs/QmYw…/1.png", animation_url: null, external_app_url: null }
 */
export function mediaUrls(
  metadata: Record<string, unknown> | null | undefined,
  { ipfsGateway = defaultIpfsGateway }: MediaUrlsParameters = {},
): MediaUrlsReturnType {
  if (!metadata || typeof metadata !== "object") {
    return { image_url: null, animation_url: null, external_app_url: null };
  }
  const properties = metadata.properties;
  const propertiesImage =
    properties && typeof properties === "object" ? (properties as Record<string, unknown>).image : undefined;
  // Blockscout takes the first present candidate even when it turns out unusable.
  const imageCandidate = [metadata.image_url, metadata.image, propertiesImage].find(
    (candidate) => candidate != null && candidate !== false,
  );
  const external = metadata.external_url;
  return {
    image_url: mediaLink(imageCandidate, ipfsGateway),
    animation_url: mediaLink(metadata.animation_url, ipfsGateway),
    external_app_url: typeof external === "string" && external.trim() !== "" ? external : null,
  };
}

function mediaLink(value: unknown, ipfsGateway: string): string | null {
  if (Array.isArray(value)) return mediaLink(value[0], ipfsGateway);
  if (value !== null && typeof value === "object") {
    const description = (value as Record<string, unknown>).description;
    return typeof description === "string" && description.trim() !== "" ? description : null;
  }
  if (typeof value !== "string" || value.trim() === "") return null;
  let encoded: string;
  try {
    // Decoding first keeps already-encoded links from being encoded twice.
    encoded = encodeURI(decodeURI(value));
  } catch {
    encoded = value;
  }
  const lower = encoded.toLowerCase();
  if (lower.startsWith("ipfs://") || lower.startsWith("ar://")) {
    return resolveTokenUri(encoded, undefined, { ipfsGateway });
  }
  return encoded;
}
