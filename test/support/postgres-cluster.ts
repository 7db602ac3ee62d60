import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.ts";

/** A PostgreSQL server of the test's own: its own folder and port, removed by `destroy`. */
export type PostgresCluster = {
  port: number;
  /** `postgres://postgres@127.0.0.1:<port>/<database>` */
  url(database?: string): string;
  start(): void;
  stop(mode?: "fast" | "immediate"): void;
  /** Stops (SIGSTOP) or continues (SIGCONT) every process of the server: a host that hangs, then recovers. */
  hang(hung: boolean): void;
  destroy(): void;
};

/** The server's programs (initdb, pg_ctl, pg_basebackup) of the newest PostgreSQL installed. */
function binDir(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions
    .map((version) => join(root, version, "bin"))
    .find((dir) => existsSync(join(dir, "initdb")));
  if (!found) throw new Error(`no PostgreSQL server programs under ${root}`);
  return found;
}

/** PostgreSQL refuses to run as root: as root, its programs run as the `postgres` user. */
function run(program: string, args: string[]): string {
  const command = join(binDir(), program);
  const [file, fileArgs] =
    process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];
  return execFileSync(file, fileArgs, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

function newFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), "sextant-pg-"));
  if (process.getuid?.() === 0) chownSync(folder, ...postgresIds());
  return folder;
}

function postgresIds(): [number, number] {
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }));
  return [id("-u"), id("-g")];
}

function cluster(folder: string, port: number): PostgresCluster {
  const data = join(folder, "data");
  const options = `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c fsync=off`;
  return {
    port,
    url: (database = "postgres") => `postgres://postgres@127.0.0.1:${port}/${database}`,
    start: () => void run("pg_ctl", ["-D", data, "-o", options, "-l", join(folder, "log"), "-w", "start"]),
    stop: (mode = "fast") => void run("pg_ctl", ["-D", data, "-m", mode, "-w", "stop"]),
    hang(hung) {
      const postmaster = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
      const children = execFileSync("ps", ["-o", "pid=", "--ppid", String(postmaster)], { encoding: "utf8" });
      const pids = [postmaster, ...children.trim().split(/\s+/).map(Number)];
      for (const pid of pids) process.kill(pid, hung ? "SIGSTOP" : "SIGCONT");
    },
    destroy() {
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } catch {
        // Already stopped.
      }
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** Creates and starts a new PostgreSQL server with trust authentication, replication allowed. */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const folder = newFolder();
  run("initdb", ["-D", join(folder, "data"), "-A", "trust", "-U", "postgres", "--no-sync"]);
  const primary = cluster(folder, await freePort());
  primary.start();
  return primary;
}

/** Copies a running server with pg_basebackup into a streaming replica on its own port, and starts it. */
export async function startStreamingReplica(primary: PostgresCluster): Promise<PostgresCluster> {
  const folder = newFolder();
  run("pg_basebackup", [
    "-h",
    "127.0.0.1",
    "-p",
    String(primary.port),
    "-U",
    "postgres",
    "-D",
    join(folder, "data"),
    "-R",
    // The default, a spread checkpoint, paces its writes over most of checkpoint_timeout: 90 s here.
    "--checkpoint=fast",
    "-X",
    "stream",
  ]);
  const replica = cluster(folder, await freePort());
  replica.start();
  return replica;
}
