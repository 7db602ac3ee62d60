import { spawn } from "node:child_process";
import { once } from "node:events";
import { rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgliteDataDir } from "./support/databases.ts";
import { freePort } from "./support/free-port.ts";
import { until } from "./support/until.ts";

const cli = join(import.meta.dirname, "../bin/sextant.js");

/**
 * Starts `sextant start` against `rpc`, waits for the log line saying what is wrong, sends SIGTERM and
 * returns the log, the exit code, how long the exit took and the status of an API request sent before.
 */
async function startThenStop(rpc: string, expected: string) {
  const dataDir = pgliteDataDir("sextant-node-");
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [cli, "start", "--rpc", rpc, "--data-dir", dataDir, "--port", String(port)],
    {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, DATABASE_URL: "" },
    },
  );
  let log = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    log += chunk;
  });
  const exited = once(child, "exit");
  try {
    await until(
      () => `"${expected}" in the log:\n${log}\n`,
      async () => log.includes(expected),
      {
        timeoutMs: 60_000,
        failOn: exited.then(() =>
          Promise.reject(new Error(`exited without "${expected}" in the log:\n${log}`)),
        ),
      },
    );
    const api = await fetch(`http://127.0.0.1:${port}/api/v2/token-transfers`).then(
      (response) => response.status,
      () => "no answer",
    );
    const stoppedAt = Date.now();
    child.kill("SIGTERM");
    const [code] = await exited;
    return { log, code, exitMs: Date.now() - stoppedAt, api };
  } finally {
    child.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe("a node that is not there, or not a node", () => {
  let page: Server;
  let pageUrl: string;

  beforeAll(async () => {
    page = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html" });
      response.end(`<!doctype html><html><body>${"<p>a web page, not a node</p>".repeat(200)}</body></html>`);
    }).listen(0, "127.0.0.1");
    await once(page, "listening");
    pageUrl = `http://127.0.0.1:${(page.address() as { port: number }).port}`;
  });
  afterAll(() => page?.close());

  it("logs what is wrong with an unreachable node in one line, serves the API meanwhile and exits cleanly on SIGTERM", async () => {
    const { log, code, exitMs, api } = await startThenStop(
      "http://127.0.0.1:1",
      "cannot reach http://127.0.0.1:1",
    );
    expect(code).toBe(0);
    expect(api).toBe(200);
    expect(exitMs).toBeLessThan(5_000);
    const lines = log
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.some((line) => line.msg === "node error, retrying")).toBe(true);
    expect(lines[lines.length - 1]).toMatchObject({ msg: "stopped" });
    expect(lines.every((line) => line.level < 50)).toBe(true);
  });

  it("says a URL that answers a web page is not JSON-RPC, without logging the page", async () => {
    const { log, code, exitMs } = await startThenStop(pageUrl, "answered text/html, not JSON-RPC");
    expect(code).toBe(0);
    expect(exitMs).toBeLessThan(5_000);
    expect(log).not.toContain("<p>");
    expect(log).not.toContain("doctype");
  });
});
