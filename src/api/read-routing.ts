import { AsyncLocalStorage } from "node:async_hooks";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Database } from "../db/client.ts";
import { type ChainHead, readChainHead } from "../db/queries/chain-head.ts";
import { isDatabaseUnavailable } from "../db/unavailable.ts";
import type { Logger } from "../logger.ts";
import { createDataVersion, type DataVersion } from "./data-version.ts";

export type RouteReadsParameters = {
  app: FastifyInstance;
  /** The database the indexer writes. */
  primary: Database;
  /** A streaming replica of `primary` (`DATABASE_READ_ONLY_API_URL`); reads stay on `primary` without one. */
  replica?: Database;
  /** How far behind the replica may be before requests read the primary (`REPLICA_MAX_LAG`). */
  maxLagMs: number;
  logger?: Logger | false;
};

export type RouteReadsReturnType = {
  /** The database of the request being answered. */
  db: Database;
  /** The indexed head as the request's database has it, so that no page shows a head newer than its rows. */
  chainHead: (request: FastifyRequest) => Promise<ChainHead>;
  /**
   * The version of the data the request's database shows (see `createDataVersion`), read once per request:
   * the page cache and the head share it.
   */
  dataVersion: (request: FastifyRequest) => Promise<string>;
  /** The replica's lag in milliseconds at the last check; null without a replica or when it could not be read. */
  replicaLagMs: () => number | null;
};

/** The lag is checked at most this often: one pair of small queries a second, whatever the traffic. */
const lagCheckIntervalMs = 1_000;
/**
 * A replica that takes longer to tell its state counts as one that cannot be read: requests wait for the
 * check, and a replica whose host hangs would otherwise hold every request (the liveness probe's too) for
 * good. The primary's part of the check is not timed: a busy primary is no reason to leave the replica.
 */
const replicaStateTimeoutMs = 1_000;

/**
 * Sends each API request's reads to the replica while it is at most `maxLagMs` behind the primary (or
 * fully replayed), else to the primary. The choice is made once per request and held for all its queries
 * (AsyncLocalStorage), and the indexed head is read from the chosen database, so a page never shows a head
 * newer than the data it reads.
 */
export function routeReads({
  app,
  primary,
  replica,
  maxLagMs,
  logger,
}: RouteReadsParameters): RouteReadsReturnType {
  const reads = new Map<
    Database,
    { version: DataVersion; head: (version: Promise<string>) => Promise<ChainHead> }
  >();
  const readsOf = (db: Database) => {
    let found = reads.get(db);
    if (!found) {
      const version = createDataVersion(db);
      found = { version, head: versionedChainHead(db) };
      reads.set(db, found);
    }
    return found;
  };
  const versions = new WeakMap<FastifyRequest, Promise<string>>();
  const versionOf = (db: Database, request: FastifyRequest) => {
    let version = versions.get(request);
    if (!version) {
      version = readsOf(db).version();
      versions.set(request, version);
    }
    return version;
  };
  if (!replica)
    return {
      db: primary,
      chainHead: (request) => readsOf(primary).head(versionOf(primary, request)),
      dataVersion: (request) => versionOf(primary, request),
      replicaLagMs: () => null,
    };

  const readReplicaState = createReplicaStateReader(replica);
  const current = new AsyncLocalStorage<Database>();
  let lagMs: number | null = null;
  let checked: { at: number; choice: Promise<Database> } | null = null;
  let usingReplica: boolean | null = null;

  /** The primary's WAL position, or null when the primary cannot be reached. */
  const primaryPosition = async (): Promise<string | undefined | null> => {
    try {
      const [written] = await primary.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn");
      return written?.lsn;
    } catch (error) {
      if (isDatabaseUnavailable(error)) return null;
      throw error;
    }
  };
  const check = async (): Promise<Database> => {
    let useReplica = false;
    let primaryDown = false;
    let measured: number | null = null;
    try {
      const written = await primaryPosition();
      primaryDown = written === null;
      const state = await readReplicaState(written ?? null);
      // With the primary down, what the replica holds is the newest data there is: it is read however long
      // ago it last replayed, rather than every request answering 503.
      if (primaryDown) useReplica = true;
      else {
        measured = lagOf(state);
        useReplica = measured <= maxLagMs;
      }
    } catch (error) {
      if (logger) logger.warn({ err: error }, "could not check the replica; reading the primary");
    }
    lagMs = measured;
    if (useReplica !== usingReplica && logger) {
      logger.info(
        { replicaLagMs: lagMs, maxLagMs, primaryDown },
        useReplica ? "reading the replica" : "reading the primary",
      );
    }
    usingReplica = useReplica;
    return useReplica ? replica : primary;
  };
  const choose = () => {
    if (!checked || Date.now() - checked.at > lagCheckIntervalMs)
      checked = { at: Date.now(), choice: check() };
    return checked.choice;
  };

  app.addHook("onRequest", (_request, _reply, done) => {
    choose().then((db) => current.run(db, done));
  });

  const routed = () => current.getStore() ?? primary;
  const db: Database = {
    get kind() {
      return routed().kind;
    },
    query: (text, params, options) => routed().query(text, params, options),
    exec: (text) => routed().exec(text),
    transaction: (work) => routed().transaction(work),
    session: (work) => routed().session(work),
    close: async () => {},
  };
  return {
    db,
    chainHead: (request) => readsOf(routed()).head(versionOf(routed(), request)),
    dataVersion: (request) => versionOf(routed(), request),
    replicaLagMs: () => lagMs,
  };
}

type ReplicaState = { recovering: boolean; caught_up: boolean | null; lag_ms: number | null };

/**
 * Reads the replica's state against the primary's WAL position `written`, failing after
 * `replicaStateTimeoutMs`. While a read that timed out is still unanswered, the next fails at once: a hung
 * replica holds one query, not one more a second.
 */
function createReplicaStateReader(replica: Database): (written: string | null) => Promise<ReplicaState> {
  let unanswered: Promise<unknown> | null = null;
  return async (written) => {
    if (unanswered) throw new Error("the replica has not answered the last check");
    const reading = replica
      .query<ReplicaState>(
        `SELECT pg_is_in_recovery() AS recovering, pg_last_wal_replay_lsn() >= $1::pg_lsn AS caught_up,
           (extract(epoch FROM now() - pg_last_xact_replay_timestamp()) * 1000)::float8 AS lag_ms`,
        [written],
      )
      .finally(() => {
        if (unanswered === reading) unanswered = null;
      });
    unanswered = reading;
    const [state] = await Promise.race([
      reading,
      new Promise<never>((_, reject) =>
        setTimeout(
          () => reject(new Error(`the replica did not tell its state within ${replicaStateTimeoutMs} ms`)),
          replicaStateTimeoutMs,
        ).unref(),
      ),
    ]);
    if (!state) throw new Error("the replica's state has no row");
    return state;
  };
}

/**
 * How far the replica is behind: 0 when it has replayed all the primary has written (a quiet primary
 * writes nothing, so the age of the last replayed transaction alone would wrongly grow), else the time
 * since the last transaction it replayed. A database that is not in recovery is no replica: it is read as
 * it is.
 */
function lagOf(state: ReplicaState): number {
  if (!state.recovering || state.caught_up) return 0;
  return state.lag_ms ?? Number.POSITIVE_INFINITY;
}

/**
 * The indexed head, read again only when the data version changed: exact for every request, and one query
 * per block written rather than one per request.
 */
function versionedChainHead(db: Database): (version: Promise<string>) => Promise<ChainHead> {
  let cached: { version: string; head: Promise<ChainHead> } | null = null;
  return async (version) => {
    const current = await version;
    if (cached?.version !== current) {
      const head = readChainHead(db);
      cached = { version: current, head };
      head.catch(() => {
        if (cached?.head === head) cached = null;
      });
    }
    return cached.head;
  };
}
