import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { until } from "./support/until.ts";

const cli = join(import.meta.dirname, "../bin/sextant.js");
/** The first start also plays the scenario, which takes longer on a busy machine; see the README. */
const firstStartTimeoutMs = 300_000;
const resumeTimeoutMs = 60_000;
const stopTimeoutMs = 20_000;

type Start = { child: ChildProcess; stderr: () => string; exited: Promise<number | null> };
type ChainView = { block0: string; block1Parent: string; block1: string; latestTransfer: unknown };

async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function startDemo(dataDir: string, port: number): Start {
  // The demo's own embedded database, whatever the environment points at.
  const child = spawn(process.execPath, [cli, "demo", "--data-dir", dataDir, "--port", String(port)], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, DATABASE_URL: "" },
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, stderr: () => stderr, exited };
}

/** Messages the demo logged (pino JSON lines on stderr). */
function logged(stderr: string): { msg: string; rpcUrl?: string; level: number }[] {
  return stderr.split("\n").flatMap((line) => {
    try {
      return [JSON.parse(line)];
    } catch {
      // Not a log line, or one still being written.
      return [];
    }
  });
}

async function rpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return ((await response.json()) as { result: T }).result;
}

/** Resolves with what the started demo serves once its API answers; rejects on timeout or early exit. */
function servedChain(start: Start, port: number, timeoutMs: number): Promise<ChainView> {
  return until(
    () => `the demo to serve: ${start.stderr().slice(-2000)}`,
    async (): Promise<ChainView | undefined> => {
      const response = await fetch(`http://127.0.0.1:${port}/api/v2/token-transfers`, {
        signal: AbortSignal.timeout(5_000),
      });
      if (!response.ok) return undefined;
      const { items } = (await response.json()) as { items: unknown[] };
      const { rpcUrl } = logged(start.stderr()).find((entry) => entry.rpcUrl) as { rpcUrl: string };
      const block = (n: string) =>
        rpc<{ hash: string; parentHash: string }>(rpcUrl, "eth_getBlockByNumber", [n, false]);
      const [block0, block1] = await Promise.all([block("0x0"), block("0x1")]);
      return {
        block0: block0.hash,
        block1Parent: block1.parentHash,
        block1: block1.hash,
        latestTransfer: items[0],
      };
    },
    {
      timeoutMs,
      intervalMs: 250,
      failOn: start.exited.then((code) =>
        Promise.reject(new Error(`demo exited with ${code}: ${start.stderr().slice(-2000)}`)),
      ),
    },
  );
}

/** Processes whose command line runs anvil on this data dir: anvil itself and its supervisor. */
function anvilsOf(dataDir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      if (command.includes("anvil") && command.includes(dataDir))
        found.push(`${pid} ${command.slice(0, 200)}`);
    } catch {
      // Exited while scanning.
    }
  }
  return found;
}

/** The anvils on `dataDir` once there are none or `stopTimeoutMs` passed. */
async function anvilsLeft(dataDir: string): Promise<string[]> {
  const gone = async () => anvilsOf(dataDir).length === 0;
  // Running out of time is no failure here: the caller's assertion names the anvils left.
  await until("the anvils to stop", gone, stopTimeoutMs).catch(() => {});
  return anvilsOf(dataDir);
}

describe("sextant demo restarts", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "sextant-demo-restarts-"));
  let running: Start | undefined;

  afterAll(async () => {
    // A failed test must not leave its demo or anvil behind.
    running?.child.kill("SIGKILL");
    for (const entry of anvilsOf(dataDir)) process.kill(Number(entry.split(" ")[0]), "SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("serves the same chain and database after each of five stops (SIGINT, SIGTERM, SIGKILL), leaving no anvil", async () => {
    const port = await freePort();
    const stops: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGKILL", "SIGINT", "SIGTERM"];
    let first: ChainView | undefined;
    for (const [i, signal] of stops.entries()) {
      const began = Date.now();
      running = startDemo(dataDir, port);
      const served = await servedChain(running, port, i === 0 ? firstStartTimeoutMs : resumeTimeoutMs);
      const messages = logged(running.stderr()).map(({ msg }) => msg);
      console.info(`start ${i + 1}: serving after ${Date.now() - began} ms`);
      expect(served.block1Parent).toBe(served.block0);
      if (first === undefined) {
        first = served;
        expect(messages).toContain("playing the demo scenario on a new anvil chain");
      } else {
        expect(served).toEqual(first);
        // Resumed as it was: no rebuild and no re-indexing from block 0.
        expect(messages).toContain("resuming the saved demo chain");
        expect(messages.filter((msg) => msg.includes("cannot be used"))).toEqual([]);
        expect(messages).not.toContain("schema migrated");
      }

      running.child.kill(signal);
      const code = await Promise.race([
        running.exited,
        new Promise((resolve) => setTimeout(() => resolve("timeout"), stopTimeoutMs)),
      ]);
      expect(code).toBe(signal === "SIGKILL" ? null : 0);
      running = undefined;
      expect(await anvilsLeft(dataDir)).toEqual([]);
    }
  }, 700_000);
});
