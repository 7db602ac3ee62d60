import { execSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import type { Database, Queryable } from "../src/db/client.ts";
import type { RpcCall, RpcClient } from "../src/rpc/client.ts";

/** Milliseconds and calls per key (a JSON-RPC method, or a statement kind and table). */
export type Totals = Map<string, { ms: number; calls: number }>;

function add(totals: Totals, key: string, ms: number, calls = 1) {
  const total = totals.get(key) ?? { ms: 0, calls: 0 };
  total.ms += ms;
  total.calls += calls;
  totals.set(key, total);
}

async function timed<T>(totals: Totals, key: string, work: () => Promise<T>, calls = 1): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    add(totals, key, performance.now() - started, calls);
  }
}

/** The batch's method, or `mixed` when it asks several. */
function methodOf(calls: RpcCall[]): string {
  const [method, ...others] = new Set(calls.map((call) => call.method));
  return method !== undefined && others.length === 0 ? method : "mixed";
}

/** `client` with the wall time of its requests summed per JSON-RPC method (overlapping requests add up). */
export function timedClient(client: RpcClient, totals: Totals): RpcClient {
  return {
    url: client.url,
    request: (method, params) => timed(totals, method, () => client.request(method, params)),
    batch: (calls) => timed(totals, methodOf(calls), () => client.batch(calls), calls.length),
    batchAccepting: (calls, accept) =>
      timed(totals, methodOf(calls), () => client.batchAccepting(calls, accept), calls.length),
  };
}

/** `INSERT tokens`, `SELECT blocks`, ...: the statement's verb and first table. */
export function statementKey(text: string): string {
  const verb = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? "?";
  const table = /\b(?:INTO|UPDATE|FROM)\s+(\w+)/i.exec(text)?.[1] ?? "?";
  return `${verb} ${table}`;
}

/**
 * `db` with the time of every statement summed per {@link statementKey}, inside transactions too. On PGlite,
 * which runs one statement at a time, each statement is sent only once the one before it has ended, so that its
 * time is its own rather than its wait behind the others (the work is the same: PGlite would run them in turn).
 */
export function timedDatabase(db: Database, totals: Totals): Database {
  const wrap = (target: Queryable): Queryable => {
    let previous: Promise<unknown> = Promise.resolve();
    const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
      if (db.kind !== "pglite") return work();
      const turn = previous.then(work);
      previous = turn.catch(() => undefined);
      return turn;
    };
    const timedInTurn = <T>(key: string, work: () => Promise<T>) => inTurn(() => timed(totals, key, work));
    return {
      query: (text, params, options) =>
        timedInTurn(statementKey(text), () => target.query(text, params, options)),
      exec: (text) => timedInTurn("exec", () => target.exec(text)),
      ...(target.copyFrom && {
        copyFrom: (table: string, columns: readonly string[], data: string | Uint8Array<ArrayBuffer>) =>
          timedInTurn(`COPY ${table}`, async () => target.copyFrom?.(table, columns, data)),
      }),
    };
  };
  return {
    ...wrap(db),
    kind: db.kind,
    transaction: (work) => timed(totals, "transaction (total)", () => db.transaction((tx) => work(wrap(tx)))),
    session: (work) => db.session((session) => work(wrap(session))),
    close: () => db.close(),
  };
}

/** CPU seconds used so far, per party to a benchmark. */
export type CpuSeconds = { self: number; anvil: number; postgres: number };

/**
 * CPU seconds used so far by this process, by anvil and by PostgreSQL (its live processes, and what
 * its ended ones used: a closed connection's backend is reaped by the server), read from /proc; null
 * where there is none. The difference of two readings says which party a run kept busy, and whether
 * the machine's cores were.
 */
export function cpuSeconds(): CpuSeconds | null {
  if (!existsSync("/proc/self/stat")) return null;
  const ticksPerSecond = Number(execSync("getconf CLK_TCK").toString()) || 100;
  const total: CpuSeconds = { self: 0, anvil: 0, postgres: 0 };
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // ended while listed
    }
    const command = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    // Fields after the command: utime, stime, cutime and cstime are the 12th to 15th.
    const fields = stat
      .slice(stat.lastIndexOf(")") + 2)
      .split(" ")
      .map(Number);
    const [utime = 0, stime = 0, cutime = 0, cstime = 0] = fields.slice(11, 15);
    const party =
      Number(pid) === process.pid
        ? "self"
        : command.includes("anvil")
          ? "anvil"
          : command.includes("postgres")
            ? "postgres"
            : null;
    if (party === null) continue;
    total[party] += (utime + stime + (party === "postgres" ? cutime + cstime : 0)) / ticksPerSecond;
  }
  return total;
}
