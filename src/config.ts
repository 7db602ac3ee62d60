import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { type Address, getAddress } from "viem";
import { entryPoint06Address, entryPoint07Address, entryPoint08Address } from "viem/account-abstraction";
import type { RateLimitParameters } from "./api/rate-limit.ts";
import { BaseError } from "./errors.ts";
import { defaultIpfsGateway } from "./indexer/fetch-token-metadata.ts";
import { parseCidr } from "./indexer/metadata-hosts.ts";

/**
 * The fewest transactions stored for the indexer to compact its indexes (`compactIndexesAfter`): at 200,000
 * transactions a compaction took 8 s and saved 18 % of the database.
 */
export const defaultCompactIndexesAfter = 100_000;

export type Config = {
  /** JSON-RPC endpoint of the node to index (`ETHEREUM_JSONRPC_HTTP_URL`, `--rpc`). */
  rpcUrl?: string;
  /** PostgreSQL URL (`DATABASE_URL`, `--database`); absent means embedded PGlite in `dataDir`. */
  databaseUrl?: string;
  /**
   * A streaming replica of `databaseUrl` that the API reads (`DATABASE_READ_ONLY_API_URL`, `--read-database`)
   * while it lags at most `replicaMaxLagMs`.
   */
  readDatabaseUrl?: string;
  /** Blockscout's `REPLICA_MAX_LAG` (`--replica-max-lag`): past it the API reads the primary. */
  replicaMaxLagMs: number;
  /** Blockscout's `APPLICATION_MODE`: what `sextant start` runs, the indexer and the API (`all`) or one of them. */
  applicationMode: "all" | "indexer" | "api";
  /** Folder for PGlite and the demo's node state (`SEXTANT_DATA_DIR`, `--data-dir`). */
  dataDir: string;
  /** HTTP port of the API (`PORT`, `--port`). */
  port: number;
  /** HTTP bind address (`SEXTANT_HOST`, `--host`). */
  host: string;
  /** First block to index when the database is empty (`FIRST_BLOCK`, `--from`). */
  firstBlock: bigint;
  /** Blocks fetched per range during catch-up (`INDEXER_CATCHUP_BLOCKS_BATCH_SIZE`, `--range-size`). */
  rangeSize: number;
  /** Ranges fetched ahead of the writer (`INDEXER_CATCHUP_BLOCKS_CONCURRENCY`, `--concurrency`). */
  concurrency: number;
  /** Largest JSON-RPC batch sent at once (`ETHEREUM_JSONRPC_BATCH_SIZE`, `--rpc-batch-size`). */
  rpcBatchSize: number;
  /** Time allowed for one JSON-RPC HTTP request in ms (`ETHEREUM_JSONRPC_HTTP_TIMEOUT`, `--rpc-timeout`). */
  rpcTimeoutMs: number;
  /** How often the head is polled once caught up, in ms (`SEXTANT_POLL_INTERVAL`, `--poll-interval`). */
  pollIntervalMs: number;
  /** Gateway for `ipfs://` token URIs (`IPFS_GATEWAY_URL`, `--ipfs-gateway`). */
  ipfsGateway: string;
  /**
   * Gateway the API's `ipfs://` media links (`image_url`, `animation_url`) point at, for browsers to load
   * (Blockscout's `IPFS_PUBLIC_GATEWAY_URL`, `--ipfs-public-gateway`): the one metadata is fetched through
   * may be private to the indexer's network, or paid for per request.
   */
  ipfsPublicGateway: string;
  /** Source of internal transactions (`SEXTANT_TRACER`, `--tracer`): auto, callTracer, parity or none. */
  tracer: "auto" | "callTracer" | "parity" | "none";
  /**
   * How long callTracer may take over one transaction, a Go duration such as `30s`
   * (`ETHEREUM_JSONRPC_DEBUG_TRACE_TRANSACTION_TIMEOUT`, `--trace-timeout`); the node's own limit (geth:
   * 5 s) when unset.
   */
  traceTimeout?: string;
  /** Deepest chain reorganization followed (`SEXTANT_REORG_DEPTH`, `--reorg-depth`). */
  maxReorgDepth: number;
  /**
   * Transactions stored before the indexer compacts its indexes, once its first sync reaches the head and
   * again each time the chain's height doubles; PostgreSQL only (`SEXTANT_COMPACT_INDEXES_AFTER`,
   * `--compact-indexes-after`); 0 never.
   */
  compactIndexesAfter: number;
  /**
   * Folder of operator ABIs (`SEXTANT_ABI_DIR`, `--abi-dir`): plain ABI JSON named by address, or
   * Sourcify-style `metadata.json`; imported at start and whenever a file appears. Default `<data dir>/abis`.
   */
  abiDir?: string;
  /** EntryPoint v0.6 addresses indexed for ERC-4337 (`SEXTANT_ENTRY_POINTS_V06`, `--entry-points-v06`); `none` turns it off. */
  entryPointsV06: Address[];
  /** EntryPoint v0.7 addresses (`SEXTANT_ENTRY_POINTS_V07`, `--entry-points-v07`); `none` turns it off. */
  entryPointsV07: Address[];
  /** EntryPoint v0.8 addresses (`SEXTANT_ENTRY_POINTS_V08`, `--entry-points-v08`); `none` turns it off. */
  entryPointsV08: Address[];
  /**
   * Blockscout's `WETH_TOKEN_TRANSFERS_FILTERING_ENABLED` (`--weth-transfers-filtering`): a
   * WETH-style `Deposit` or `Withdrawal` counts as a token transfer only from `whitelistedWethContracts`;
   * off, every contract's counts.
   */
  wethTransfersFilteringEnabled: boolean;
  /**
   * Blockscout's `WHITELISTED_WETH_CONTRACTS` (`--whitelisted-weth-contracts`, comma list): the wrappers
   * whose `Deposit` and `Withdrawal` count when `wethTransfersFilteringEnabled`; ignored otherwise.
   */
  whitelistedWethContracts: Address[];
  /**
   * Blockscout's `INDEXER_TOKEN_INSTANCE_HOST_FILTERING_ENABLED` (`--metadata-host-filtering`): token URIs
   * and their redirects may not reach private, loopback, link-local or reserved addresses. On by default.
   */
  metadataHostFiltering: boolean;
  /**
   * Blockscout's `INDEXER_TOKEN_INSTANCE_CIDR_BLACKLIST` (`--metadata-cidr-blacklist`, comma list of CIDR
   * ranges): further addresses token URIs may not reach while `metadataHostFiltering` is on.
   */
  metadataCidrBlacklist: string[];
  /** Uniswap v3 factory whose pools' events become actions (`INDEXER_TX_ACTIONS_UNISWAP_V3_FACTORY_CONTRACT`). */
  uniswapV3Factory: Address | null;
  /** Uniswap v3 position manager whose mints become `mint_nft` actions (`INDEXER_TX_ACTIONS_UNISWAP_V3_NFT_POSITION_MANAGER_CONTRACT`). */
  uniswapV3PositionManager: Address | null;
  /** Aave v3 pool whose events become actions (`INDEXER_TX_ACTIONS_AAVE_V3_POOL_CONTRACT`). */
  aaveV3Pool: Address | null;
  /** Symbol of the chain's native currency, as summaries name it (`COIN`, `--coin`). */
  coin: string;
  /** Blockscout-compatible transaction interpretation service asked first for endpoint 7 (`SEXTANT_INTERPRETER_URL`). */
  interpreterUrl?: string;
  /**
   * How old the newest stored block may be before `/api/health` compares it with the node's head
   * (Blockscout's `HEALTHY_BLOCKS_PERIOD`, `--healthy-blocks-period`), in ms.
   */
  healthyBlocksPeriodMs: number;
  /** Megabytes of serialized API pages served again while the data is unchanged (`SEXTANT_PAGE_CACHE_MB`); 0 for none. */
  pageCacheMb: number;
  /** API requests computed at once, the others waiting in arrival order (`SEXTANT_API_CONCURRENCY`); 0 for no limit. */
  apiConcurrency: number;
  /** Blockscout's `API_RATE_LIMIT_DISABLED`: no API rate limit even where one is configured. */
  apiRateLimitDisabled: boolean;
  /** Requests per `apiRateLimitTimeIntervalMs` shared by all clients no other limit takes (`API_RATE_LIMIT`). */
  apiRateLimit?: number;
  /** `API_RATE_LIMIT_TIME_INTERVAL` (default 1 s). */
  apiRateLimitTimeIntervalMs: number;
  /** Requests per `apiRateLimitByIpTimeIntervalMs` from one client address (`API_RATE_LIMIT_BY_IP`). */
  apiRateLimitByIp?: number;
  /** `API_RATE_LIMIT_BY_IP_TIME_INTERVAL` (default 5 min). */
  apiRateLimitByIpTimeIntervalMs: number;
  /** An `apikey` with a budget of its own (`API_RATE_LIMIT_STATIC_API_KEY`). */
  apiRateLimitStaticApiKey?: string;
  /** Requests per `apiRateLimitByKeyTimeIntervalMs` sent with the static API key (`API_RATE_LIMIT_BY_KEY`). */
  apiRateLimitByKey?: number;
  /** `API_RATE_LIMIT_BY_KEY_TIME_INTERVAL` (default 1 s). */
  apiRateLimitByKeyTimeIntervalMs: number;
  /** Client addresses with a budget of their own (`API_RATE_LIMIT_WHITELISTED_IPS`, comma list). */
  apiRateLimitWhitelistedIps: string[];
  /** Requests per `apiRateLimitByWhitelistedIpTimeIntervalMs` from one whitelisted address (`API_RATE_LIMIT_BY_WHITELISTED_IP`). */
  apiRateLimitByWhitelistedIp?: number;
  /** `API_RATE_LIMIT_BY_WHITELISTED_IP_TIME_INTERVAL` (default 1 s). */
  apiRateLimitByWhitelistedIpTimeIntervalMs: number;
  /** `API_RATE_LIMIT_IS_BLOCKSCOUT_BEHIND_PROXY`: take the client address from `x-forwarded-for`. */
  apiRateLimitBehindProxy: boolean;
  /** pino log level (`LOG_LEVEL`, `--log-level`). */
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
};

/** A configuration value that cannot be used; the CLI prints its message and exits with code 2. */
export class ConfigError extends BaseError {
  override name = "ConfigError";
  override readonly isUserError = true;
}

type Source = Record<string, string | undefined>;

type Field = {
  env: string;
  flag: string;
  parse: (raw: string, name: string) => unknown;
};

const integer =
  (min: number, max: number) =>
  (raw: string, name: string): number => {
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
    }
    return Number(raw);
  };

const url =
  (protocols: string[]) =>
  (raw: string, name: string): string => {
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      throw new ConfigError(`${name} must be a URL, got "${raw}"`);
    }
    if (!protocols.includes(parsed.protocol)) {
      throw new ConfigError(`${name} must use ${protocols.join(" or ")}, got "${raw}"`);
    }
    return raw;
  };

const addressPattern = /^0x[0-9a-fA-F]{40}$/;

const address = (raw: string, name: string): Address | null => {
  if (raw === "none") return null;
  if (!addressPattern.test(raw)) throw new ConfigError(`${name} must be an address or "none", got "${raw}"`);
  return getAddress(raw.toLowerCase());
};

const addressList = (raw: string, name: string): Address[] => {
  if (raw === "none") return [];
  return raw.split(",").map((part) => {
    const parsed = address(part.trim(), name);
    if (parsed === null)
      throw new ConfigError(`${name} must be a comma-separated list of addresses or "none"`);
    return parsed;
  });
};

const durationUnits = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** A duration as Blockscout writes it (`30s`, `5m`, `1h`), or a bare number of milliseconds. */
const duration = (raw: string, name: string): number => {
  const match = /^(\d+)(ms|s|m|h)?$/.exec(raw);
  if (!match) throw new ConfigError(`${name} must be a duration such as 300000, 30s, 5m or 1h, got "${raw}"`);
  // The pattern admits no other unit.
  return Number(match[1]) * durationUnits[(match[2] ?? "ms") as keyof typeof durationUnits];
};

const boolean = (raw: string, name: string): boolean => {
  if (raw !== "true" && raw !== "false") throw new ConfigError(`${name} must be true or false, got "${raw}"`);
  return raw === "true";
};

const applicationModes = ["all", "indexer", "api"];
const tracers = ["auto", "callTracer", "parity", "none"];
const levels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

const fields: Record<keyof Config, Field> = {
  rpcUrl: { env: "ETHEREUM_JSONRPC_HTTP_URL", flag: "rpc", parse: url(["http:", "https:"]) },
  databaseUrl: { env: "DATABASE_URL", flag: "database", parse: url(["postgres:", "postgresql:"]) },
  readDatabaseUrl: {
    env: "DATABASE_READ_ONLY_API_URL",
    flag: "read-database",
    parse: url(["postgres:", "postgresql:"]),
  },
  replicaMaxLagMs: { env: "REPLICA_MAX_LAG", flag: "replica-max-lag", parse: duration },
  applicationMode: {
    env: "APPLICATION_MODE",
    flag: "application-mode",
    parse: (raw, name) => {
      if (!applicationModes.includes(raw))
        throw new ConfigError(`${name} must be one of ${applicationModes.join(", ")}, got "${raw}"`);
      return raw;
    },
  },
  dataDir: { env: "SEXTANT_DATA_DIR", flag: "data-dir", parse: (raw) => resolve(raw) },
  port: { env: "PORT", flag: "port", parse: integer(0, 65535) },
  host: { env: "SEXTANT_HOST", flag: "host", parse: (raw) => raw },
  firstBlock: {
    env: "FIRST_BLOCK",
    flag: "from",
    parse: (raw, name) => {
      if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a block number, got "${raw}"`);
      return BigInt(raw);
    },
  },
  rangeSize: { env: "INDEXER_CATCHUP_BLOCKS_BATCH_SIZE", flag: "range-size", parse: integer(1, 10_000) },
  concurrency: { env: "INDEXER_CATCHUP_BLOCKS_CONCURRENCY", flag: "concurrency", parse: integer(1, 64) },
  rpcBatchSize: { env: "ETHEREUM_JSONRPC_BATCH_SIZE", flag: "rpc-batch-size", parse: integer(1, 10_000) },
  rpcTimeoutMs: { env: "ETHEREUM_JSONRPC_HTTP_TIMEOUT", flag: "rpc-timeout", parse: integer(100, 600_000) },
  pollIntervalMs: { env: "SEXTANT_POLL_INTERVAL", flag: "poll-interval", parse: integer(10, 600_000) },
  ipfsGateway: { env: "IPFS_GATEWAY_URL", flag: "ipfs-gateway", parse: url(["http:", "https:"]) },
  ipfsPublicGateway: {
    env: "IPFS_PUBLIC_GATEWAY_URL",
    flag: "ipfs-public-gateway",
    parse: url(["http:", "https:"]),
  },
  tracer: {
    env: "SEXTANT_TRACER",
    flag: "tracer",
    parse: (raw, name) => {
      if (!tracers.includes(raw))
        throw new ConfigError(`${name} must be one of ${tracers.join(", ")}, got "${raw}"`);
      return raw;
    },
  },
  traceTimeout: {
    env: "ETHEREUM_JSONRPC_DEBUG_TRACE_TRANSACTION_TIMEOUT",
    flag: "trace-timeout",
    parse: (raw, name) => {
      // Go's time.ParseDuration, which geth reads it with: "30s", "1m30s", "1.5m"; none of zero length,
      // which fails every trace.
      if (!/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(raw) || !/[1-9]/.test(raw))
        throw new ConfigError(`${name} must be a duration such as 30s or 2m, got "${raw}"`);
      return raw;
    },
  },
  maxReorgDepth: { env: "SEXTANT_REORG_DEPTH", flag: "reorg-depth", parse: integer(1, 100_000) },
  compactIndexesAfter: {
    env: "SEXTANT_COMPACT_INDEXES_AFTER",
    flag: "compact-indexes-after",
    parse: integer(0, Number.MAX_SAFE_INTEGER),
  },
  abiDir: { env: "SEXTANT_ABI_DIR", flag: "abi-dir", parse: (raw) => resolve(raw) },
  entryPointsV06: { env: "SEXTANT_ENTRY_POINTS_V06", flag: "entry-points-v06", parse: addressList },
  entryPointsV07: { env: "SEXTANT_ENTRY_POINTS_V07", flag: "entry-points-v07", parse: addressList },
  entryPointsV08: { env: "SEXTANT_ENTRY_POINTS_V08", flag: "entry-points-v08", parse: addressList },
  wethTransfersFilteringEnabled: {
    env: "WETH_TOKEN_TRANSFERS_FILTERING_ENABLED",
    flag: "weth-transfers-filtering",
    parse: boolean,
  },
  metadataHostFiltering: {
    env: "INDEXER_TOKEN_INSTANCE_HOST_FILTERING_ENABLED",
    flag: "metadata-host-filtering",
    parse: boolean,
  },
  metadataCidrBlacklist: {
    env: "INDEXER_TOKEN_INSTANCE_CIDR_BLACKLIST",
    flag: "metadata-cidr-blacklist",
    parse: (raw, name) =>
      raw.split(",").map((part) => {
        if (parseCidr(part) === null)
          throw new ConfigError(
            `${name} must be a comma-separated list of CIDR ranges, got "${part.trim()}"`,
          );
        return part.trim();
      }),
  },
  whitelistedWethContracts: {
    env: "WHITELISTED_WETH_CONTRACTS",
    flag: "whitelisted-weth-contracts",
    parse: addressList,
  },
  uniswapV3Factory: {
    env: "INDEXER_TX_ACTIONS_UNISWAP_V3_FACTORY_CONTRACT",
    flag: "uniswap-v3-factory",
    parse: address,
  },
  uniswapV3PositionManager: {
    env: "INDEXER_TX_ACTIONS_UNISWAP_V3_NFT_POSITION_MANAGER_CONTRACT",
    flag: "uniswap-v3-position-manager",
    parse: address,
  },
  aaveV3Pool: { env: "INDEXER_TX_ACTIONS_AAVE_V3_POOL_CONTRACT", flag: "aave-v3-pool", parse: address },
  coin: {
    env: "COIN",
    flag: "coin",
    parse: (raw, name) => {
      if (!/^[A-Za-z0-9.$-]{1,16}$/.test(raw))
        throw new ConfigError(`${name} must be a currency symbol, got "${raw}"`);
      return raw;
    },
  },
  interpreterUrl: {
    env: "SEXTANT_INTERPRETER_URL",
    flag: "interpreter-url",
    parse: url(["http:", "https:"]),
  },
  healthyBlocksPeriodMs: { env: "HEALTHY_BLOCKS_PERIOD", flag: "healthy-blocks-period", parse: duration },
  pageCacheMb: { env: "SEXTANT_PAGE_CACHE_MB", flag: "page-cache-mb", parse: integer(0, 1_000_000) },
  apiConcurrency: { env: "SEXTANT_API_CONCURRENCY", flag: "api-concurrency", parse: integer(0, 100_000) },
  apiRateLimitDisabled: { env: "API_RATE_LIMIT_DISABLED", flag: "api-rate-limit-disabled", parse: boolean },
  apiRateLimit: { env: "API_RATE_LIMIT", flag: "api-rate-limit", parse: integer(1, 1_000_000_000) },
  apiRateLimitTimeIntervalMs: {
    env: "API_RATE_LIMIT_TIME_INTERVAL",
    flag: "api-rate-limit-time-interval",
    parse: duration,
  },
  apiRateLimitByIp: {
    env: "API_RATE_LIMIT_BY_IP",
    flag: "api-rate-limit-by-ip",
    parse: integer(1, 1_000_000_000),
  },
  apiRateLimitByIpTimeIntervalMs: {
    env: "API_RATE_LIMIT_BY_IP_TIME_INTERVAL",
    flag: "api-rate-limit-by-ip-time-interval",
    parse: duration,
  },
  apiRateLimitStaticApiKey: {
    env: "API_RATE_LIMIT_STATIC_API_KEY",
    flag: "api-rate-limit-static-api-key",
    parse: (raw) => raw,
  },
  apiRateLimitByKey: {
    env: "API_RATE_LIMIT_BY_KEY",
    flag: "api-rate-limit-by-key",
    parse: integer(1, 1_000_000_000),
  },
  apiRateLimitByKeyTimeIntervalMs: {
    env: "API_RATE_LIMIT_BY_KEY_TIME_INTERVAL",
    flag: "api-rate-limit-by-key-time-interval",
    parse: duration,
  },
  apiRateLimitWhitelistedIps: {
    env: "API_RATE_LIMIT_WHITELISTED_IPS",
    flag: "api-rate-limit-whitelisted-ips",
    parse: (raw) =>
      raw
        .split(",")
        .map((ip) => ip.trim())
        .filter(Boolean),
  },
  apiRateLimitByWhitelistedIp: {
    env: "API_RATE_LIMIT_BY_WHITELISTED_IP",
    flag: "api-rate-limit-by-whitelisted-ip",
    parse: integer(1, 1_000_000_000),
  },
  apiRateLimitByWhitelistedIpTimeIntervalMs: {
    env: "API_RATE_LIMIT_BY_WHITELISTED_IP_TIME_INTERVAL",
    flag: "api-rate-limit-by-whitelisted-ip-time-interval",
    parse: duration,
  },
  apiRateLimitBehindProxy: {
    env: "API_RATE_LIMIT_IS_BLOCKSCOUT_BEHIND_PROXY",
    flag: "api-rate-limit-behind-proxy",
    parse: boolean,
  },
  logLevel: {
    env: "LOG_LEVEL",
    flag: "log-level",
    parse: (raw, name) => {
      if (!levels.includes(raw)) throw new ConfigError(`${name} must be one of ${levels.join(", ")}`);
      return raw;
    },
  },
};

const defaults: Config = {
  replicaMaxLagMs: 5 * 60_000,
  applicationMode: "all",
  dataDir: resolve(".sextant"),
  port: 4000,
  host: "127.0.0.1",
  firstBlock: 0n,
  rangeSize: 100,
  concurrency: 4,
  rpcBatchSize: 100,
  rpcTimeoutMs: 30_000,
  pollIntervalMs: 1_000,
  ipfsGateway: defaultIpfsGateway,
  ipfsPublicGateway: defaultIpfsGateway,
  tracer: "auto",
  maxReorgDepth: 128,
  compactIndexesAfter: defaultCompactIndexesAfter,
  // The canonical deployments (the same address on every chain) and Ethereum mainnet's protocol contracts.
  entryPointsV06: [entryPoint06Address],
  entryPointsV07: [entryPoint07Address],
  entryPointsV08: [entryPoint08Address],
  wethTransfersFilteringEnabled: false,
  whitelistedWethContracts: [],
  metadataHostFiltering: true,
  metadataCidrBlacklist: [],
  uniswapV3Factory: "0x1F98431c8aD98523631AE4a59f267346ea31F984",
  uniswapV3PositionManager: "0xC36442b4a4522E871399CD717aBDD847Ab11FE88",
  aaveV3Pool: "0x87870Bca3F3fD6335C3F4ce8392D69350B4fA4E2",
  coin: "ETH",
  healthyBlocksPeriodMs: 5 * 60_000,
  pageCacheMb: 64,
  apiConcurrency: 16,
  // Blockscout's intervals; its limits themselves apply only when set.
  apiRateLimitDisabled: false,
  apiRateLimitTimeIntervalMs: 1_000,
  apiRateLimitByIpTimeIntervalMs: 5 * 60_000,
  apiRateLimitByKeyTimeIntervalMs: 1_000,
  apiRateLimitWhitelistedIps: [],
  apiRateLimitByWhitelistedIpTimeIntervalMs: 1_000,
  apiRateLimitBehindProxy: false,
  logLevel: "info",
};

export type LoadConfigParameters = {
  env?: Source;
  /** `--name value` or `--name=value` pairs, already split from the command's other arguments. */
  flags?: Source;
};

/**
 * Builds the typed configuration from flags (first) and environment (second), validating every value.
 * @throws {ConfigError} naming the variable or flag and what it must be.
 */
export function loadConfig({ env = process.env, flags = {} }: LoadConfigParameters = {}): Config {
  const config: Record<string, unknown> = { ...defaults };
  for (const [key, field] of Object.entries(fields)) {
    const fromFlag = flags[field.flag];
    const raw = fromFlag ?? env[field.env];
    if (raw === undefined || raw === "") continue;
    config[key] = field.parse(raw, fromFlag !== undefined ? `--${field.flag}` : field.env);
  }
  if (config.readDatabaseUrl && !config.databaseUrl)
    throw new ConfigError(
      "DATABASE_READ_ONLY_API_URL needs DATABASE_URL: a replica is of a PostgreSQL primary",
    );
  const known = new Set(Object.values(fields).map((field) => field.flag));
  for (const flag of Object.keys(flags)) {
    if (!known.has(flag)) throw new ConfigError(`unknown option --${flag}`);
  }
  return config as Config;
}

/**
 * A default written as the flag takes it: a duration in its largest whole unit (`5m`), a list
 * comma-separated; none for an empty list.
 */
function writtenDefault(value: unknown, field: Field): string | undefined {
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return undefined;
  if (Array.isArray(value)) return value.join(",");
  if (field.parse === duration && typeof value === "number") {
    const [unit, ms] = Object.entries(durationUnits)
      .reverse()
      .find(([, ms]) => value % ms === 0) ?? ["ms", 1];
    return `${value / ms}${unit}`;
  }
  return String(value);
}

/** The flags `loadConfig` understands, with their environment names and defaults, for `--help`. */
export const configOptions = Object.entries(fields).map(([key, field]) => ({
  env: field.env,
  flag: field.flag,
  default: writtenDefault(defaults[key as keyof Config], field),
}));

export type CommandLine = {
  /** The command's name and the words after it (`abi import <path>`). */
  positionals: string[];
  /** The configuration's flags by name, for {@link loadConfig}. */
  flags: Record<string, string>;
  /** `abi import`'s `--address`. */
  address?: string;
  /** `--help` or `-h` was given. */
  help: boolean;
};

/**
 * Splits the CLI's arguments into words and flags, each flag's value given as `--name value` or
 * `--name=value`.
 * @throws {ConfigError} naming, as it was written, an option Sextant does not have (`-p` is not `--port`),
 * or a flag given no value.
 */
export function parseCommandLine(argv: string[]): CommandLine {
  const { positionals, tokens } = parseArgs({
    args: argv,
    allowPositionals: true,
    // Not strict: the unknown options are refused below with a message of ours.
    strict: false,
    tokens: true,
    options: {
      help: { type: "boolean", short: "h" },
      address: { type: "string" },
      ...Object.fromEntries(configOptions.map(({ flag }) => [flag, { type: "string" as const }])),
    },
  });
  const known = new Set(configOptions.map(({ flag }) => flag));
  if (positionals[0] === "abi") known.add("address");
  const commandLine: CommandLine = { positionals, flags: {}, help: false };
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    if (token.name === "help") {
      commandLine.help = true;
      continue;
    }
    // The word as written, without a value: parseArgs splits `-port` into -p, -o, -r and -t.
    const written = (argv[token.index] ?? token.rawName).split("=")[0];
    if (!known.has(token.name)) throw new ConfigError(`unknown option ${written}`);
    if (token.value === undefined) throw new ConfigError(`${written} needs a value`);
    if (token.name === "address") commandLine.address = token.value;
    else commandLine.flags[token.name] = token.value;
  }
  return commandLine;
}

/** The API rate limits the configuration sets, in the shape the API server takes; none when disabled. */
export function rateLimitsOf(config: Config): RateLimitParameters {
  if (config.apiRateLimitDisabled) return {};
  const rule = (limit: number | undefined, intervalMs: number) =>
    limit === undefined ? undefined : { limit, intervalMs };
  const byKey = rule(config.apiRateLimitByKey, config.apiRateLimitByKeyTimeIntervalMs);
  const whitelisted = rule(
    config.apiRateLimitByWhitelistedIp,
    config.apiRateLimitByWhitelistedIpTimeIntervalMs,
  );
  return {
    global: rule(config.apiRateLimit, config.apiRateLimitTimeIntervalMs),
    byIp: rule(config.apiRateLimitByIp, config.apiRateLimitByIpTimeIntervalMs),
    staticApiKey:
      byKey && config.apiRateLimitStaticApiKey
        ? { key: config.apiRateLimitStaticApiKey, ...byKey }
        : undefined,
    whitelisted:
      whitelisted && config.apiRateLimitWhitelistedIps.length > 0
        ? { ips: config.apiRateLimitWhitelistedIps, ...whitelisted }
        : undefined,
    behindProxy: config.apiRateLimitBehindProxy,
  };
}
