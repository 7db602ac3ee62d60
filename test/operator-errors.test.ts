import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { pgliteDataDir, postgresKinds } from "./support/databases.ts";
import { freePort } from "./support/free-port.ts";
import { until } from "./support/until.ts";

const cli = join(import.meta.dirname, "../bin/sextant.js");

/** Runs the CLI to its end; a process that does not end within a minute counts as hung (status null). */
const run = (...args: string[]) =>
  spawnSync(process.execPath, [cli, ...args], {
    encoding: "utf8",
    timeout: 60_000,
    killSignal: "SIGKILL",
    env: { ...process.env, DATABASE_URL: "" },
  });

describe("what an operator gets wrong at start", () => {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  const removedAfter = (dir: string) => {
    dirs.push(dir);
    return dir;
  };
  const dataDir = () => removedAfter(mkdtempSync(join(tmpdir(), "sextant-operator-")));
  // For the cases about what follows a database's creation, one created already.
  const migratedDataDir = () => removedAfter(pgliteDataDir("sextant-operator-"));
  let taken: Server;
  let takenPort: number;

  beforeAll(async () => {
    taken = createServer().listen(0, "127.0.0.1");
    await once(taken, "listening");
    takenPort = (taken.address() as { port: number }).port;
  });
  afterEach(() => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
  });
  afterAll(() => {
    taken?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("a port in use stops with one line and exit code 2, and leaves the database unlocked", () => {
    const dir = migratedDataDir();
    const result = run("serve", "--data-dir", dir, "--port", String(takenPort), "--log-level", "warn");
    expect(result.stderr).toBe(
      `sextant: cannot serve on 127.0.0.1:${takenPort}: the port is in use by another process (set --port/PORT or --host/SEXTANT_HOST)\n`,
    );
    expect(result.status).toBe(2);
    expect(existsSync(join(dir, "pglite.pid"))).toBe(false);
    expect(run("migrate", "--data-dir", dir, "--log-level", "warn").status).toBe(0);
  });

  it("a host that is not this machine's stops with one line and exit code 2 instead of hanging", () => {
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): no machine has it.
    const result = run(
      "serve",
      "--data-dir",
      migratedDataDir(),
      "--host",
      "192.0.2.1",
      "--port",
      "0",
      "--log-level",
      "warn",
    );
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      "sextant: cannot serve on 192.0.2.1:0: the host is not an address of this machine (set --port/PORT or --host/SEXTANT_HOST)\n",
    );
  });

  it("a PostgreSQL server that cannot be reached stops with one line naming it, after a few seconds' tries, and exit code 2", async () => {
    const port = await freePort();
    const startedAt = Date.now();
    const result = run(
      "start",
      "--rpc",
      "http://127.0.0.1:1",
      "--database",
      `postgres://postgres:secret@127.0.0.1:${port}/postgres`,
      "--log-level",
      "warn",
    );
    expect(result.stderr).toBe(
      `sextant: cannot reach PostgreSQL at 127.0.0.1:${port} (ECONNREFUSED) within 5 s: start it, or fix the host or port in the database URL\n`,
    );
    expect(result.status).toBe(2);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(5_000);
  });

  it("a PostgreSQL host that takes connections and never answers stops with one line after 5 s, not the driver's 30", async () => {
    const silent = createServer(() => {}).listen(0, "127.0.0.1");
    await once(silent, "listening");
    const port = (silent.address() as { port: number }).port;
    /** Runs `migrate` against the silent host to its end: its exit code, standard error and duration. */
    const migrate = async (query: string) => {
      const startedAt = Date.now();
      const child = spawn(
        process.execPath,
        [
          cli,
          "migrate",
          "--database",
          `postgres://postgres@127.0.0.1:${port}/postgres${query}`,
          "--log-level",
          "warn",
        ],
        { env: { ...process.env, DATABASE_URL: "" }, stdio: ["ignore", "pipe", "pipe"] },
      );
      children.push(child);
      let stderr = "";
      child.stderr?.on("data", (chunk) => {
        stderr += chunk;
      });
      const [code] = await once(child, "exit");
      return { code, stderr, ms: Date.now() - startedAt };
    };
    try {
      // The operator's own connect timeout is kept, for a database that resumes on connection.
      const [plain, patient] = await Promise.all([migrate(""), migrate("?connect_timeout=8")]);
      expect(plain.stderr).toBe(
        `sextant: cannot reach PostgreSQL at 127.0.0.1:${port} (CONNECT_TIMEOUT) within 5 s: start it, or fix the host or port in the database URL\n`,
      );
      expect(plain.code).toBe(2);
      expect(plain.ms).toBeLessThan(15_000);
      expect(patient.code).toBe(2);
      expect(patient.ms).toBeGreaterThanOrEqual(8_000);
    } finally {
      silent.close();
    }
  });

  it("a stop while waiting for PostgreSQL to answer ends the process at once, not after the wait", async () => {
    // A server that closes every connection it takes, as one that is starting or restarting does.
    const closing = createServer((socket) => socket.destroy()).listen(0, "127.0.0.1");
    await once(closing, "listening");
    const dialed = once(closing, "connection");
    try {
      const port = (closing.address() as { port: number }).port;
      const child = spawn(
        process.execPath,
        [cli, "serve", "--database", `postgres://postgres@127.0.0.1:${port}/postgres`, "--port", "0"],
        { env: { ...process.env, DATABASE_URL: "" }, stdio: ["ignore", "pipe", "pipe"] },
      );
      children.push(child);
      let output = "";
      for (const stream of [child.stdout, child.stderr])
        stream?.on("data", (chunk) => {
          output += chunk;
        });
      const exited = once(child, "exit");
      await dialed;
      const stoppedAt = Date.now();
      child.kill("SIGTERM");
      const [code] = await exited;
      // The wait lasts 5 s: the stop is heard within it.
      expect(Date.now() - stoppedAt).toBeLessThan(2_000);
      expect(code).toBe(0);
      expect(output).toContain('"msg":"stopped"');
    } finally {
      closing.close();
    }
  });

  it("a data directory that cannot be written stops with one line and exit code 2", () => {
    // Under a file: no user, root included, can create a folder there.
    const file = join(dataDir(), "a-file");
    writeFileSync(file, "");
    const result = run("migrate", "--data-dir", join(file, "data"));
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      `sextant: cannot write the data directory ${join(file, "data")} (ENOTDIR): set --data-dir or SEXTANT_DATA_DIR to a folder this user can write\n`,
    );
  });

  it("a second process on the same PGlite folder is refused with one line; a killed holder's lock is taken over; the first logs the port the system gave it", async () => {
    const dir = migratedDataDir();
    const first = spawn(
      process.execPath,
      [cli, "serve", "--data-dir", dir, "--port=0", "--log-level", "info"],
      { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, DATABASE_URL: "" } },
    );
    children.push(first);
    let log = "";
    first.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      log += chunk;
    });
    await until(
      () => `the first process serving:\n${log}`,
      async () => log.includes('"msg":"serving"}\n'),
      {
        timeoutMs: 60_000,
      },
    );
    // Where the system put port 0, not ":0".
    const serving = JSON.parse(log.split("\n").find((line) => line.includes('"msg":"serving"')) ?? "");
    expect(serving.url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*\/api\/v2$/);
    expect((await fetch(serving.docs)).status).toBe(200);
    const second = run("migrate", "--data-dir", dir);
    expect(second.status).toBe(2);
    expect(second.stderr).toBe(
      `sextant: the PGlite database in ${dir} is in use by process ${first.pid}: PGlite allows one process at a time (stop it, set another --data-dir, or use PostgreSQL with DATABASE_URL)\n`,
    );
    first.kill("SIGKILL");
    await once(first, "exit");
    expect(run("migrate", "--data-dir", dir, "--log-level", "warn")).toMatchObject({ status: 0, stderr: "" });
  });

  it("a second demo on the same folder is refused before it touches the first one's files", async () => {
    const dir = dataDir();
    const demoDir = join(dir, "demo");
    // A live process's lock, as a running demo holds it: a sleeping process stands in for the demo.
    const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 120000)"], { stdio: "ignore" });
    children.push(holder);
    mkdirSync(demoDir);
    writeFileSync(join(demoDir, "demo.pid"), `${holder.pid}\n`);
    writeFileSync(join(demoDir, "scenario.json"), "{}");
    const result = run("demo", "--data-dir", dir, "--port", "0");
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      `sextant: the demo in ${demoDir} is running in process ${holder.pid}: stop it, or set another --data-dir\n`,
    );
    expect(existsSync(join(demoDir, "scenario.json"))).toBe(true);
  });
});

describe.each(postgresKinds)("a database URL that names what is not there (%s)", () => {
  it("a missing database stops with one line naming it and exit code 2", () => {
    const url = new URL(process.env.DATABASE_URL as string);
    url.pathname = "/sextant_no_such_database";
    const result = spawnSync(process.execPath, [cli, "migrate", "--log-level", "warn"], {
      encoding: "utf8",
      timeout: 60_000,
      killSignal: "SIGKILL",
      env: { ...process.env, DATABASE_URL: url.toString() },
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      `sextant: PostgreSQL at ${url.hostname}:${url.port || 5432} refused: database "sextant_no_such_database" does not exist; create it (CREATE DATABASE sextant_no_such_database) or fix the database URL\n`,
    );
  });
});
