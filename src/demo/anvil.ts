import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { Hex } from "viem";
import { createRpcClient } from "../rpc/client.ts";
import { repairAnvilState } from "./repair-anvil-state.ts";

/** Parameters of {@link startAnvil}. */
export type StartAnvilParameters = {
  /**
   * Loads the chain from this file when it exists (keeping only its original genesis block, see
   * {@link repairAnvilState}) and dumps the chain into it when anvil stops, also when this process dies.
   */
  stateFile?: string;
  /** Port on 127.0.0.1; a free one is picked when omitted. */
  port?: number;
  /** Seconds between automatically mined blocks; blocks are mined per transaction when omitted. */
  blockTime?: number;
  /** `cancun` by default (faster and smaller state); `prague` accepts EIP-7702 transactions. */
  hardfork?: "cancun" | "prague";
  /** Further command-line arguments, e.g. `["--accounts", "100"]` or `["--load-state", file]`. */
  args?: readonly string[];
};

/** A running anvil node started by {@link startAnvil}. */
export type Anvil = {
  /** HTTP JSON-RPC endpoint, e.g. `http://127.0.0.1:8545`. */
  rpcUrl: string;
  port: number;
  /** Writes the chain into `stateFile` now (write then rename), so a later crash cannot lose it. */
  saveState(): Promise<void>;
  /** Terminates anvil and resolves once the process has exited (and written its state file). */
  stop(): Promise<void>;
};

/** How long anvil gets to write its state and exit after SIGTERM before it is killed. */
const killGraceMs = 5_000;

/**
 * Runs anvil (`$0` with arguments `$@`) and stops it once its stdin, a pipe from this process, closes:
 * on {@link Anvil.stop}, and also when this process dies in any way, even by SIGKILL when no exit
 * handler runs. Anvil gets SIGTERM (it writes its state file) and SIGKILL if it has not exited in time,
 * so it never outlives this process. The supervisor exits with anvil's status.
 */
const supervisor = `
exec 3<&0 </dev/null
"$0" "$@" 3<&- &
anvil=$!
{
  read -r _ <&3
  kill -TERM "$anvil" 2>/dev/null
  tenths=0
  while kill -0 "$anvil" 2>/dev/null && [ "$tenths" -lt ${killGraceMs / 100} ]; do
    sleep 0.1
    tenths=$((tenths + 1))
  done
  kill -KILL "$anvil" 2>/dev/null
} &
watcher=$!
exec 3<&-
wait "$anvil"
status=$?
kill "$watcher" 2>/dev/null
exit "$status"
`;

const readyTimeoutMs = 15_000;
const readyPollIntervalMs = 50;
const stderrTailLength = 8_000;

/**
 * Starts the anvil binary shipped in the `@foundry-rs/anvil-<platform>-<arch>` npm package with the
 * Cancun hardfork and waits until it answers JSON-RPC.
 *
 * @example
 * const anvil = await startAnvil({ stateFile: ".sextant/demo-state.json" });
 * // ... use anvil.rpcUrl
 * await anvil.stop();
 */
export async function startAnvil(parameters: StartAnvilParameters = {}): Promise<Anvil> {
  // Binding first also catches a busy explicit port: another node there would answer the readiness probe.
  const port = await reservePort(parameters.port ?? 0);
  const args = [
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    "--hardfork",
    parameters.hardfork ?? "cancun",
    "--silent",
  ];
  const { stateFile } = parameters;
  if (stateFile !== undefined) {
    if (existsSync(stateFile)) repairAnvilState(stateFile);
    args.push("--state", stateFile);
  }
  if (parameters.blockTime !== undefined) args.push("--block-time", String(parameters.blockTime));
  if (parameters.args !== undefined) args.push(...parameters.args);

  // Its own process group: a terminal's Ctrl-C reaches only this process, which then stops anvil in order.
  const child = spawn("/bin/sh", ["-c", supervisor, resolveAnvilBinary(), ...args], {
    stdio: ["pipe", "ignore", "pipe"],
    detached: true,
  });
  // The pipe is only ever closed; a supervisor that is already gone must not fail this process.
  child.stdin?.on("error", () => {});
  // Only the tail matters for error messages, and a long-running node must not grow this forever.
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-stderrTailLength);
  });
  // `events.once(child, "exit")` would reject on "error", so plain listeners track both outcomes.
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const spawnError = new Promise<Error>((resolve) => child.once("error", resolve));

  const rpcUrl = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady({ rpcUrl, child, spawnError });
  } catch (error) {
    await terminate(child, exited);
    const details = stderr.trim() ? `\nanvil stderr:\n${stderr.trim()}` : "";
    throw new Error(`anvil did not start on ${rpcUrl}: ${(error as Error).message}${details}`);
  }

  let stopping: Promise<void> | undefined;
  return {
    rpcUrl,
    port,
    async saveState() {
      if (stateFile === undefined) throw new Error("anvil was started without a state file");
      const dump = await createRpcClient({ url: rpcUrl }).request<Hex>("anvil_dumpState");
      const temporaryFile = `${stateFile}.${process.pid}.tmp`;
      await writeFile(temporaryFile, gunzipSync(Buffer.from(dump.slice(2), "hex")));
      await rename(temporaryFile, stateFile);
    },
    stop() {
      stopping ??= terminate(child, exited);
      return stopping;
    },
  };
}

function resolveAnvilBinary(): string {
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  const packageName = `@foundry-rs/anvil-${process.platform}-${arch}`;
  const require = createRequire(import.meta.url);
  const executable = process.platform === "win32" ? "anvil.exe" : "anvil";
  try {
    return join(dirname(require.resolve(`${packageName}/package.json`)), "bin", executable);
  } catch {
    throw new Error(`${packageName} is not installed; anvil has no npm binary for this platform`);
  }
}

async function reservePort(port: number): Promise<number> {
  const server = createServer();
  server.listen(port, "127.0.0.1");
  try {
    await once(server, "listening");
  } catch (error) {
    throw new Error(`cannot use 127.0.0.1:${port} for anvil: ${(error as Error).message}`);
  }
  const address = server.address();
  server.close();
  await once(server, "close");
  if (address === null || typeof address === "string") throw new Error("could not determine a free port");
  return address.port;
}

async function waitUntilReady(parameters: {
  rpcUrl: string;
  child: ChildProcess;
  spawnError: Promise<Error>;
}): Promise<void> {
  const { rpcUrl, child, spawnError } = parameters;
  let failure: Error | undefined;
  spawnError.then((error) => {
    failure = error;
  });
  const deadline = Date.now() + readyTimeoutMs;
  while (Date.now() < deadline) {
    if (failure) throw failure;
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`anvil exited early (code ${child.exitCode ?? child.signalCode})`);
    }
    if (await answersChainId(rpcUrl)) return;
    await new Promise((resolve) => setTimeout(resolve, readyPollIntervalMs));
  }
  throw new Error(`no eth_chainId answer within ${readyTimeoutMs} ms`);
}

async function answersChainId(rpcUrl: string): Promise<boolean> {
  try {
    const response = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    const body = (await response.json()) as { result?: unknown };
    return typeof body.result === "string";
  } catch {
    // Connection refused until anvil has bound its port.
    return false;
  }
}

async function terminate(child: ChildProcess, exited: Promise<void>): Promise<void> {
  // Without a pid the supervisor never started, so no exit event will come.
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  child.stdin?.end();
  // The supervisor escalates to SIGKILL itself; killing its whole group is the last resort.
  const pid = child.pid;
  const killTimer = setTimeout(() => {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // The group is already gone.
    }
  }, killGraceMs + 2_000);
  await exited;
  clearTimeout(killTimer);
}
