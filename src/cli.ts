import { parseArgs } from "node:util";
import { createChainIndexer, openStore, serve } from "./app.ts";
import { type Config, ConfigError, configOptions, loadConfig } from "./config.ts";
import { ChainMismatchError } from "./db/chain-identity.ts";
import { ReorgTooDeepError } from "./indexer/create-indexer.ts";
import { createLogger, type Logger } from "./logger.ts";

const usage = `Usage: sextant <command> [options]

Commands:
  start     index the node and serve the API in one process
  index     index only
  serve     serve the API only (PostgreSQL; PGlite allows one process)
  migrate   bring the database schema up to date
  demo      start a local anvil chain with a demo scenario, index it and serve it (npm start)

Options (flag, or environment variable):
${configOptions.map(({ flag, env }) => `  --${flag.padEnd(16)} ${env}`).join("\n")}
`;

type Command = (config: Config, logger: Logger, signal: AbortSignal) => Promise<void>;

function requireRpc(config: Config): Config & { rpcUrl: string } {
  if (!config.rpcUrl) throw new ConfigError("no node to index: set ETHEREUM_JSONRPC_HTTP_URL or pass --rpc");
  return config as Config & { rpcUrl: string };
}

const commands: Record<string, Command> = {
  async start(config, logger, signal) {
    const withRpc = requireRpc(config);
    const db = await openStore({ config, logger });
    const indexer = createChainIndexer({ config: withRpc, db, logger });
    await indexer.prepare();
    const app = await serve({ config, db, logger });
    logger.info({ url: `http://${config.host}:${config.port}/api/v2` }, "serving");
    try {
      await indexer.run(signal);
    } finally {
      await app.close();
      await db.close();
    }
  },
  async index(config, logger, signal) {
    const db = await openStore({ config, logger });
    const indexer = createChainIndexer({ config: requireRpc(config), db, logger });
    try {
      await indexer.prepare();
      await indexer.run(signal);
    } finally {
      await db.close();
    }
  },
  async serve(config, logger, signal) {
    const db = await openStore({ config, logger });
    const app = await serve({ config, db, logger });
    logger.info({ url: `http://${config.host}:${config.port}/api/v2` }, "serving");
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    await app.close();
    await db.close();
  },
  async migrate(config, logger) {
    const db = await openStore({ config, logger });
    await db.close();
  },
  async demo(config, logger, signal) {
    // Loaded on demand: the demo brings the Solidity compiler and anvil, which other commands never need.
    const { runDemo } = await import("./demo/run-demo.ts");
    await runDemo({ config, logger, signal });
  },
};

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: false,
    options: {
      help: { type: "boolean", short: "h" },
      ...Object.fromEntries(configOptions.map(({ flag }) => [flag, { type: "string" as const }])),
    },
  });
  const known = new Set(configOptions.map(({ flag }) => flag));
  const unknownFlag = Object.keys(values).find((flag) => flag !== "help" && !known.has(flag));
  if (unknownFlag) {
    process.stderr.write(`sextant: unknown option --${unknownFlag}\n`);
    return 2;
  }
  const [name, ...extra] = positionals;
  if (values.help || !name) {
    process.stdout.write(usage);
    return name || values.help ? 0 : 2;
  }
  const command = commands[name];
  if (!command || extra.length > 0) {
    process.stderr.write(`sextant: unknown command "${[name, ...extra].join(" ")}"\n\n${usage}`);
    return 2;
  }
  const { help: _help, ...flags } = values;
  let config: Config;
  try {
    for (const [flag, value] of Object.entries(flags)) {
      if (typeof value !== "string") throw new ConfigError(`--${flag} needs a value`);
    }
    config = loadConfig({ flags: flags as Record<string, string> });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`sextant: ${error.shortMessage}\n`);
      return 2;
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  const controller = new AbortController();
  const stop = () => controller.abort(new Error("stopped by signal"));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    await command(config, logger, controller.signal);
    return 0;
  } catch (error) {
    if (
      error instanceof ConfigError ||
      error instanceof ChainMismatchError ||
      error instanceof ReorgTooDeepError
    ) {
      process.stderr.write(`sextant: ${error.shortMessage}\n`);
      return 2;
    }
    logger.fatal({ err: error }, "stopped by an error");
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
