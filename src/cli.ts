import type { FastifyInstance } from "fastify";
import { isAddress } from "viem";
import { createChainIndexer, openStore, serve } from "./app.ts";
import {
  type CommandLine,
  type Config,
  ConfigError,
  configOptions,
  loadConfig,
  parseCommandLine,
} from "./config.ts";
import { compactIndexes } from "./db/compact-indexes.ts";
import { AbiImportIncompleteError, abiFilesAt, importAbis } from "./db/import-abis.ts";
import { isUserError } from "./errors.ts";
import type { Indexer } from "./indexer/create-indexer.ts";
import { createLogger, type Logger } from "./logger.ts";
import { createMetrics } from "./metrics.ts";
import { progressOnTerminal } from "./progress.ts";
import { untilAborted } from "./signals.ts";

const usage = `Usage: sextant <command> [options]

Commands:
  start     index the node and serve the API in one process (APPLICATION_MODE=indexer|api: one of them)
  index     index only
  serve     serve the API only (PostgreSQL; PGlite allows one process)
  migrate   bring the database schema up to date
  compact   rebuild the indexes packed (PostgreSQL; the indexer does it once its first sync ends)
  demo      start a local anvil chain with a demo scenario, index it and serve it (npm start)
  abi import <path> [--address 0x..]
            import an ABI file (plain ABI JSON or Sourcify metadata.json) or every one in a folder

Options (flag, or environment variable):
${configOptions
  .map(
    ({ flag, env, default: value }) =>
      `  --${flag}, ${env}${value === undefined ? "" : `  [default: ${value}]`}`,
  )
  .join("\n")}
`;

/** What follows the command's name: `abi import` takes a path and `--address`. */
type Invocation = { args: string[]; address?: string };

type Command = (config: Config, logger: Logger, signal: AbortSignal, invocation: Invocation) => Promise<void>;

function requireRpc(config: Config): Config & { rpcUrl: string } {
  if (!config.rpcUrl) throw new ConfigError("no node to index: set ETHEREUM_JSONRPC_HTTP_URL or pass --rpc");
  return config as Config & { rpcUrl: string };
}

/** Logs where the API answers, once it listens: at the port bound, which the system picks for port 0. */
function logServing(app: FastifyInstance, logger: Logger): void {
  logger.info({ url: `${app.listeningOrigin}/api/v2`, docs: `${app.listeningOrigin}/docs` }, "serving");
}

/** Prepares the indexer, then runs it, its progress on the terminal, until it stops or fails. */
async function prepareAndRun(indexer: Indexer, signal: AbortSignal): Promise<void> {
  await indexer.prepare(signal);
  const stopProgress = progressOnTerminal(indexer.status);
  try {
    await indexer.run(signal);
  } finally {
    stopProgress();
  }
}

const commands = {
  async start(config, logger, signal): Promise<void> {
    // Blockscout's roles: one process may run only the indexer or only the API.
    if (config.applicationMode === "indexer") return commands.index(config, logger, signal);
    if (config.applicationMode === "api") return commands.serve(config, logger, signal);
    const withRpc = requireRpc(config);
    const db = await openStore({ config, logger, signal });
    try {
      const metrics = createMetrics();
      const indexer = createChainIndexer({ config: withRpc, db, logger, metrics, signal });
      // The API serves what is stored while the indexer waits for a node that is away: a health check
      // that finds no API would restart a process that is only waiting.
      const app = await serve({ config, db, logger, metrics, indexer });
      logServing(app, logger);
      try {
        await prepareAndRun(indexer, signal);
      } finally {
        await app.close();
      }
    } finally {
      await db.close();
    }
  },
  async index(config, logger, signal) {
    const db = await openStore({ config, logger, signal });
    const indexer = createChainIndexer({
      config: requireRpc(config),
      db,
      logger,
      metrics: createMetrics(),
      signal,
    });
    try {
      await prepareAndRun(indexer, signal);
    } finally {
      await db.close();
    }
  },
  async serve(config, logger, signal) {
    const db = await openStore({ config, logger, signal });
    try {
      const app = await serve({ config, db, logger, metrics: createMetrics() });
      logServing(app, logger);
      await untilAborted(signal);
      await app.close();
    } finally {
      await db.close();
    }
  },
  async migrate(config, logger, signal) {
    const db = await openStore({ config, logger, signal });
    await db.close();
  },
  async compact(config, logger, signal) {
    // PGlite is never compacted: its embedded databases hold small chains.
    if (!config.databaseUrl)
      throw new ConfigError("compact needs PostgreSQL: set DATABASE_URL or pass --database");
    const db = await openStore({ config, logger, signal });
    try {
      const compacted = await compactIndexes(db, { logger, signal });
      const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
      if (compacted)
        process.stdout.write(
          `compacted ${compacted.indexes} indexes: ${mb(compacted.bytesBefore)} MB -> ${mb(compacted.bytesAfter)} MB in ${(compacted.milliseconds / 1000).toFixed(1)} s\n`,
        );
    } finally {
      await db.close();
    }
  },
  async demo(config, logger, signal) {
    // Loaded on demand: the demo brings the Solidity compiler and anvil, which other commands never need.
    const { runDemo } = await import("./demo/run-demo.ts");
    await runDemo({ config, logger, signal });
  },
  async abi(config, logger, signal, { args, address }) {
    const [action, path, ...rest] = args;
    if (action !== "import" || !path || rest.length > 0)
      throw new ConfigError("usage: sextant abi import <path> [--address 0x..]");
    if (address !== undefined && !isAddress(address, { strict: false }))
      throw new ConfigError(`--address must be an address, got "${address}"`);
    // A path that names no ABI file is said before the database is opened, let alone migrated.
    await abiFilesAt(path, { address });
    const db = await openStore({ config, logger, signal });
    try {
      const { imported, failed } = await importAbis(db, { path, address });
      for (const contract of imported) {
        process.stdout.write(
          `imported ${contract.address} ${contract.name ?? "(unnamed)"} from ${contract.file} (${contract.abi.length} ABI entries)\n`,
        );
      }
      for (const error of failed) process.stderr.write(`sextant: ${error.shortMessage}\n`);
      if (failed.length > 0)
        throw new AbiImportIncompleteError(
          `${failed.length} of ${failed.length + imported.length} ABI files not imported`,
        );
    } finally {
      await db.close();
    }
  },
} satisfies Record<string, Command>;

/** A user's error as its one line and exit code 2; any other error is thrown on. */
function refuse(error: unknown): number {
  if (!isUserError(error)) throw error;
  process.stderr.write(`sextant: ${error.shortMessage}\n`);
  return 2;
}

async function main(argv: string[]): Promise<number> {
  let commandLine: CommandLine;
  try {
    commandLine = parseCommandLine(argv);
  } catch (error) {
    return refuse(error);
  }
  const { positionals, flags, address, help } = commandLine;
  const [name, ...extra] = positionals;
  if (help || !name) {
    process.stdout.write(usage);
    return name || help ? 0 : 2;
  }
  // Own keys only: a command named `constructor` must not find Object's members.
  const command: Command | undefined = Object.hasOwn(commands, name)
    ? commands[name as keyof typeof commands]
    : undefined;
  if (!command || (extra.length > 0 && name !== "abi")) {
    process.stderr.write(`sextant: unknown command "${[name, ...extra].join(" ")}"\n\n${usage}`);
    return 2;
  }
  let config: Config;
  try {
    config = loadConfig({ flags });
  } catch (error) {
    return refuse(error);
  }
  const logger = createLogger(config.logLevel);
  const controller = new AbortController();
  // The first signal finishes the write and the requests in flight; a second one does not wait.
  const stop = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(130);
    logger.info({ signal }, "stopping");
    controller.abort(new Error(`stopped by ${signal}`));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  try {
    await command(config, logger, controller.signal, { args: extra, address });
    if (controller.signal.aborted) logger.info("stopped");
    return 0;
  } catch (error) {
    if (controller.signal.aborted) {
      logger.info("stopped");
      return 0;
    }
    if (isUserError(error)) {
      process.stderr.write(`sextant: ${error.shortMessage}\n`);
      return 2;
    }
    logger.fatal({ err: error }, "stopped by an error");
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
// The command has ended and closed what it opened; whatever a failure may still have left open (a
// socket, a timer) does not keep a process that said it stopped alive.
setTimeout(() => process.exit(), 5_000).unref();
