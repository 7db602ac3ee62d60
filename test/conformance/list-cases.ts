import type { Endpoint } from "../../src/api/define-endpoint.ts";
import type { Database } from "../../src/db/client.ts";
import { endpointPath, listEndpoints, queryParameters } from "../support/endpoints.ts";
import { bytea, hex, sql } from "./demo-chain.ts";

/**
 * One request of a list endpoint on the demo chain (a filter, type or sort value) and the rows it must
 * list, computed by the suite's own SQL over the stored chain (not through `src/db/queries`).
 */
export type ListCase = {
  endpoint: Endpoint;
  /** Path with its parameters filled in, no query. */
  path: string;
  /** Filters and sorts, sent again with every cursor. */
  query: Record<string, string>;
  /** The rows in the contract's order: `key` names a row once, `order` is what the order is defined on. */
  expected: () => Promise<{ key: string; order: string }[]>;
  key: (item: Item) => string;
  order: (item: Item) => string;
  /** The cursor has `block_number` and `index` (the partial cursor clients send). */
  blockAndIndex: boolean;
};

// biome-ignore lint/suspicious/noExplicitAny: items are JSON checked field by field by the suite.
type Item = any;

const zero = `decode(repeat('00', 20), 'hex')`;

/**
 * Current balances from the stored token transfers alone (the suite does not read `token_balances`):
 * `token`, `id` (-1 for a fungible balance), `holder`, `value` > 0, the zero address never a holder.
 */
const balances = `WITH moves AS (
    SELECT t.token_address AS token, x.id, t.to_address AS holder, COALESCE(x.amount, 1) AS delta
    FROM token_transfers t CROSS JOIN LATERAL unnest(t.token_ids, t.amounts) AS x(id, amount)
    UNION ALL
    SELECT t.token_address, x.id, t.from_address, -COALESCE(x.amount, 1)
    FROM token_transfers t CROSS JOIN LATERAL unnest(t.token_ids, t.amounts) AS x(id, amount)
  ), balances AS (
    SELECT m.token, COALESCE(m.id, -1) AS id, m.holder, sum(m.delta) AS value, k.type
    FROM moves m JOIN tokens k ON k.address = m.token
    WHERE m.holder <> ${zero}
    GROUP BY m.token, COALESCE(m.id, -1), m.holder, k.type
    HAVING sum(m.delta) > 0
  )`;

/** The token transfers (a batch one row per id) matching `where`, newest first. */
const transfersListing = (where: string) =>
  `SELECT t.block_number || ':' || t.log_index || ':' || COALESCE(x.id::text, '') AS key
   FROM token_transfers t JOIN tokens k ON k.address = t.token_address
   CROSS JOIN LATERAL unnest(t.token_ids, t.amounts) WITH ORDINALITY AS x(id, amount, n)
   WHERE ${where}
   ORDER BY t.block_number DESC, t.log_index DESC, x.n`;

/** The one value `text` selects; throws when it selects none, as a demo chain without such rows would. */
async function one(db: Database, text: string, params: unknown[] = []): Promise<string> {
  const [row] = await sql<{ value: string | null }>(db, text, params);
  if (row?.value == null) throw new Error(`the demo chain has no rows for: ${text}`);
  return row.value;
}

const keyed = (db: Database, text: string, params: unknown[]) => async () =>
  (await sql<{ key: string; ord?: string }>(db, text, params)).map((row) => ({
    key: row.key,
    order: row.ord ?? row.key,
  }));

const tokenTypes = ["ERC-20", "ERC-721", "ERC-1155", "ERC-404"];

/** How a transaction (or internal transaction, as `i.`) involves `$1`: any way, or as each filter keeps it. */
const directions = {
  "": "t.from_address = $1 OR t.to_address = $1 OR t.created_contract = $1",
  from: "t.from_address = $1",
  to: "t.to_address = $1 OR t.created_contract = $1",
};

/** The holder with most balance rows. */
const busiestHolder = (db: Database) =>
  one(
    db,
    `${balances} SELECT ${hex("holder")} AS value FROM balances GROUP BY holder ORDER BY count(*) DESC, holder LIMIT 1`,
  );

/** The withdrawals matching `where`, highest index first. */
const withdrawalListing = (db: Database, where: string, params: unknown[]) =>
  keyed(db, `SELECT w.index::text AS key FROM withdrawals w WHERE ${where} ORDER BY w.index DESC`, params);

/** One request of a list: its path parameters, and the rest of its case. */
type ListRequest = Omit<ListCase, "endpoint" | "path" | "blockAndIndex"> & { params: Record<string, string> };

/**
 * The requests of each list endpoint, by operationId, on the rows of the demo chain that span most pages:
 * every list endpoint needs its entry.
 */
const listRequests: Record<string, (db: Database) => Promise<ListRequest[]>> = {
  // Endpoint 2: the address in most transactions; every filter and sort.
  addressTransactions: async (db) => {
    const requests: ListRequest[] = [];
    const add = (request: ListRequest) => requests.push(request);
    const sender = await one(
      db,
      `SELECT ${hex("a")} AS value FROM (
         SELECT from_address AS a FROM transactions UNION ALL SELECT to_address FROM transactions
         UNION ALL SELECT created_contract FROM transactions) s
       WHERE a IS NOT NULL GROUP BY a ORDER BY count(*) DESC, a LIMIT 1`,
    );
    const transactionsQuery = (where: string, order: string, projection: string) =>
      `SELECT ${hex("t.hash")} AS key, ${projection} AS ord
       FROM transactions t CROSS JOIN (SELECT ${bytea("$1")} AS a) p
       WHERE ${where.replaceAll("$1", "p.a")} ORDER BY ${order}`;
    for (const [filter, where] of Object.entries(directions)) {
      add({
        params: { address_hash_param: sender },
        query: filter ? { filter } : {},
        expected: keyed(db, transactionsQuery(where, "t.block_number DESC, t.index DESC", hex("t.hash")), [
          sender,
        ]),
        key: (item) => item.hash,
        order: (item) => item.hash,
      });
    }
    for (const sort of ["value", "fee", "block_number"]) {
      for (const order of ["asc", "desc"]) {
        const column = {
          value: "t.value",
          fee: "t.gas_used * t.effective_gas_price",
          block_number: "t.block_number",
        }[sort] as string;
        add({
          params: { address_hash_param: sender },
          query: { sort, order },
          // The contract orders by the sort key; rows with equal keys may come in any order.
          expected: keyed(db, transactionsQuery(directions[""], `${column} ${order}`, `(${column})::text`), [
            sender,
          ]),
          key: (item) => item.hash,
          order: (item) =>
            String({ value: item.value, fee: item.fee.value, block_number: item.block_number }[sort]),
        });
      }
    }
    return requests;
  },
  // Endpoint 3: the address that emitted most logs; its most frequent topic0, and a topic1 (any position).
  addressLogs: async (db) => {
    const requests: ListRequest[] = [];
    const add = (request: ListRequest) => requests.push(request);
    const emitter = await one(
      db,
      `SELECT ${hex("address")} AS value FROM logs GROUP BY address ORDER BY count(*) DESC, address LIMIT 1`,
    );
    const topics = await sql<{ topic: string }>(
      db,
      `(SELECT ${hex("topic0")} AS topic FROM logs WHERE address = ${bytea("$1")} AND topic0 IS NOT NULL
        GROUP BY topic0 ORDER BY count(*) DESC, topic0 LIMIT 1)
       UNION ALL
       (SELECT ${hex("topic1")} FROM logs WHERE address = ${bytea("$1")} AND topic1 IS NOT NULL
        GROUP BY topic1 ORDER BY count(*) DESC, topic1 LIMIT 1)`,
      [emitter],
    );
    for (const topic of [undefined, ...topics.map((row) => row.topic)]) {
      add({
        params: { address_hash_param: emitter },
        query: topic ? { topic } : {},
        expected: keyed(
          db,
          `SELECT l.block_number || ':' || l.log_index AS key FROM logs l
           WHERE l.address = ${bytea("$1")} ${topic ? `AND ${bytea("$2")} IN (l.topic0, l.topic1, l.topic2, l.topic3)` : ""}
           ORDER BY l.block_number DESC, l.log_index DESC`,
          topic ? [emitter, topic] : [emitter],
        ),
        key: (item) => `${item.block_number}:${item.index}`,
        order: (item) => `${item.block_number}:${item.index}`,
      });
    }
    return requests;
  },
  // Endpoint 4: the block the withdrawals are in, by number and by hash.
  blockWithdrawals: async (db) => {
    const requests: ListRequest[] = [];
    const add = (request: ListRequest) => requests.push(request);
    const blockNumber = await one(db, "SELECT max(block_number)::text AS value FROM withdrawals");
    const blockHash = await one(db, `SELECT ${hex("hash")} AS value FROM blocks WHERE number = $1::int8`, [
      blockNumber,
    ]);
    for (const block of [blockNumber, blockHash]) {
      add({
        params: { block_hash_or_number_param: block },
        query: {},
        expected: withdrawalListing(db, "w.block_number = $1::int8", [blockNumber]),
        key: (item) => String(item.index),
        order: (item) => String(item.index),
      });
    }
    return requests;
  },
  // Endpoint 5: each address the withdrawals credit.
  addressWithdrawals: async (db) => {
    const requests: ListRequest[] = [];
    const add = (request: ListRequest) => requests.push(request);
    const receivers = await sql<{ value: string }>(
      db,
      `SELECT DISTINCT ${hex("address")} AS value FROM withdrawals ORDER BY 1`,
    );
    for (const { value: receiver } of receivers) {
      add({
        params: { address_hash_param: receiver },
        query: {},
        expected: withdrawalListing(db, `w.address = ${bytea("$1")}`, [receiver]),
        key: (item) => String(item.index),
        order: (item) => String(item.index),
      });
    }
    return requests;
  },
  // Endpoint 6: every token (each type has its own holder rows).
  tokenHolders: async (db) => {
    const requests: ListRequest[] = [];
    const add = (request: ListRequest) => requests.push(request);
    const tokens = await sql<{ address: string; type: string }>(
      db,
      `SELECT ${hex("address")} AS address, type FROM tokens ORDER BY address`,
    );
    for (const token of tokens) {
      const rows =
        token.type === "ERC-721"
          ? `SELECT holder, sum(value) AS value, NULL::numeric AS id FROM balances WHERE token = ${bytea("$1")} AND id >= 0 GROUP BY holder`
          : token.type === "ERC-1155"
            ? `SELECT holder, value, id FROM balances WHERE token = ${bytea("$1")} AND id >= 0`
            : `SELECT holder, value, NULL::numeric AS id FROM balances WHERE token = ${bytea("$1")} AND id = -1`;
      add({
        params: { address_hash_param: token.address },
        query: {},
        expected: keyed(
          db,
          `${balances} SELECT ${hex("h.holder")} || ':' || COALESCE(h.id::text, '') AS key,
             h.value::text || ':' || ${hex("h.holder")} AS ord
           FROM (${rows}) h ORDER BY h.value DESC, h.holder DESC`,
          [token.address],
        ),
        key: (item) => `${item.address_hash.hash.toLowerCase()}:${item.token_id ?? ""}`,
        order: (item) => `${item.value}:${item.address_hash.hash.toLowerCase()}`,
      });
    }
    return requests;
  },
  // Endpoint 8: every transfer, and each token type.
  tokenTransfers: async (db) => {
    const requests: ListRequest[] = [];
    const add = (request: ListRequest) => requests.push(request);
    for (const type of [undefined, ...tokenTypes, "[erc-721,ERC-1155]"]) {
      const types = type ? type.toUpperCase().replace(/[[\]]/g, "").split(",") : [];
      add({
        params: {},
        query: type ? { type } : {},
        expected: keyed(db, transfersListing(type ? "k.type = ANY($1::text[])" : "$1::text[] IS NOT NULL"), [
          types,
        ]),
        key: (item) => `${item.block_number}:${item.log_index}:${item.total?.token_id ?? ""}`,
        order: (item) => `${item.block_number}:${item.log_index}:${item.total?.token_id ?? ""}`,
      });
    }
    return requests;
  },
  // Endpoint 9: for each NFT token, the id with most holders.
  tokenInstanceHolders: async (db) => {
    const requests: ListRequest[] = [];
    const add = (request: ListRequest) => requests.push(request);
    const instances = await sql<{ token: string; id: string }>(
      db,
      `${balances} SELECT DISTINCT ON (token) ${hex("token")} AS token, id::text AS id
       FROM balances WHERE id >= 0 GROUP BY token, id ORDER BY token, count(*) DESC, id`,
    );
    for (const { token, id } of instances) {
      add({
        params: { address_hash_param: token, token_id_param: id },
        query: {},
        expected: keyed(
          db,
          `${balances} SELECT ${hex("holder")} AS key, value::text || ':' || ${hex("holder")} AS ord
           FROM balances WHERE token = ${bytea("$1")} AND id = $2::numeric ORDER BY value DESC, holder DESC`,
          [token, id],
        ),
        key: (item) => item.address_hash.hash.toLowerCase(),
        order: (item) => `${item.value}:${item.address_hash.hash.toLowerCase()}`,
      });
    }
    return requests;
  },
  // Endpoint 1: the holder with most balance rows; every type.
  addressTokens: async (db) => {
    const requests: ListRequest[] = [];
    const add = (request: ListRequest) => requests.push(request);
    const holder = await busiestHolder(db);
    for (const type of [undefined, ...tokenTypes, "ERC-721,ERC-1155"]) {
      const types = type ? type.split(",") : tokenTypes;
      add({
        params: { address_hash_param: holder },
        query: type ? { type } : {},
        expected: keyed(
          db,
          `${balances}, rows AS (
             SELECT token, NULL::numeric AS id, sum(value) AS value FROM balances
             WHERE holder = ${bytea("$1")} AND type = 'ERC-721' GROUP BY token
             UNION ALL
             SELECT token, NULLIF(id, -1), value FROM balances WHERE holder = ${bytea("$1")} AND type <> 'ERC-721'
           )
           SELECT ${hex("r.token")} || ':' || COALESCE(r.id::text, '') AS key, r.value::text AS ord
           FROM rows r JOIN tokens k ON k.address = r.token
           WHERE k.type = ANY($2::text[]) ORDER BY r.value DESC`,
          [holder, types],
        ),
        key: (item) => `${item.token.address_hash.toLowerCase()}:${item.token_id ?? ""}`,
        order: (item) => item.value,
      });
    }
    return requests;
  },
  // Endpoint 11: the holder with most balance rows; NFT types, and a list without any.
  addressNftCollections: async (db) => {
    const requests: ListRequest[] = [];
    const add = (request: ListRequest) => requests.push(request);
    const holder = await busiestHolder(db);
    for (const type of [undefined, "ERC-1155", "ERC-721,ERC-404", "ERC-20"]) {
      // NFT types only; a list without any (ERC-20) means every NFT type.
      const types = (type ?? "").split(",").filter((name) => name !== "ERC-20" && name !== "");
      add({
        params: { address_hash_param: holder },
        query: type ? { type } : {},
        expected: keyed(
          db,
          `${balances} SELECT DISTINCT ${hex("token")} AS key,
             array_position(ARRAY['ERC-721', 'ERC-1155', 'ERC-404'], type) AS rank, token
           FROM balances WHERE holder = ${bytea("$1")} AND id >= 0 AND type = ANY($2::text[])
           ORDER BY rank, token`,
          [holder, types.length > 0 ? types : tokenTypes.slice(1)],
        ),
        key: (item) => item.token.address_hash.toLowerCase(),
        order: (item) => item.token.address_hash.toLowerCase(),
      });
    }
    return requests;
  },
  // Endpoint 12: the address in most internal transactions (top-level calls repeat the transaction).
  addressInternalTransactions: async (db) => {
    const requests: ListRequest[] = [];
    const add = (request: ListRequest) => requests.push(request);
    const internal = `NOT (i.index = 0 AND i.type = 'call')`;
    const caller = await one(
      db,
      `SELECT ${hex("a")} AS value FROM (
         SELECT from_address AS a FROM internal_transactions i WHERE ${internal}
         UNION ALL SELECT to_address FROM internal_transactions i WHERE ${internal}
         UNION ALL SELECT created_contract FROM internal_transactions i WHERE ${internal}) s
       WHERE a IS NOT NULL GROUP BY a ORDER BY count(*) DESC, a LIMIT 1`,
    );
    for (const [filter, where] of Object.entries(directions)) {
      add({
        params: { address_hash_param: caller },
        query: filter ? { filter } : {},
        expected: keyed(
          db,
          `SELECT i.block_number || ':' || i.transaction_index || ':' || i.index AS key
           FROM internal_transactions i CROSS JOIN (SELECT ${bytea("$1")} AS a) p
           WHERE (${where.replaceAll("t.", "i.").replaceAll("$1", "p.a")}) AND ${internal}
           ORDER BY i.block_number DESC, i.transaction_index DESC, i.index DESC`,
          [caller],
        ),
        key: (item) => `${item.block_number}:${item.transaction_index}:${item.index}`,
        order: (item) => `${item.block_number}:${item.transaction_index}:${item.index}`,
      });
    }
    return requests;
  },
  // Endpoint 13: the address in most token transfers; each filter, type and its busiest token.
  addressTokenTransfers: async (db) => {
    const requests: ListRequest[] = [];
    const add = (request: ListRequest) => requests.push(request);
    const trader = await one(
      db,
      `SELECT ${hex("a")} AS value FROM (
         SELECT from_address AS a FROM token_transfers UNION ALL
         SELECT to_address FROM token_transfers WHERE to_address <> from_address) s
       GROUP BY a ORDER BY count(*) DESC, a LIMIT 1`,
    );
    const busiest = await one(
      db,
      `SELECT ${hex("token_address")} AS value FROM token_transfers
       WHERE from_address = ${bytea("$1")} OR to_address = ${bytea("$1")}
       GROUP BY token_address ORDER BY count(*) DESC, token_address LIMIT 1`,
      [trader],
    );
    const variants: Record<string, string>[] = [
      {},
      { filter: "from" },
      { filter: "to" },
      ...tokenTypes.map((type) => ({ type })),
      { type: "ERC-721,ERC-1155", filter: "to" },
      { token: busiest },
      { token: busiest, filter: "from" },
      { token: busiest, filter: "to" },
    ];
    for (const query of variants) {
      const where = [
        query.filter === "from"
          ? "t.from_address = p.a"
          : query.filter === "to"
            ? "t.to_address = p.a"
            : "(t.from_address = p.a OR t.to_address = p.a)",
        query.type ? "k.type = ANY($2::text[])" : "$2::text[] IS NOT NULL",
        query.token ? `t.token_address = ${bytea("$3")}` : "$3::text IS NULL",
      ];
      add({
        params: { address_hash_param: trader },
        query,
        expected: keyed(
          db,
          transfersListing(`${where.join(" AND ")}`).replace(
            "FROM token_transfers t",
            `FROM token_transfers t CROSS JOIN (SELECT ${bytea("$1")} AS a) p`,
          ),
          [trader, query.type ? query.type.split(",") : [], query.token ?? null],
        ),
        key: (item) => `${item.block_number}:${item.log_index}:${item.total?.token_id ?? ""}`,
        order: (item) => `${item.block_number}:${item.log_index}:${item.total?.token_id ?? ""}`,
      });
    }
    return requests;
  },
};

/** Every list request the suite makes on the demo chain: each list endpoint's, with its path filled in. */
export async function listCases(db: Database): Promise<ListCase[]> {
  const names = listEndpoints.map((endpoint) => endpoint.schema.operationId);
  const stale = Object.keys(listRequests).filter((name) => !names.includes(name));
  if (stale.length > 0) throw new Error(`list requests for no list endpoint: ${stale.join(", ")}`);
  const cases: ListCase[] = [];
  for (const endpoint of listEndpoints) {
    const requests = listRequests[endpoint.schema.operationId];
    if (!requests)
      throw new Error(`no list requests for ${endpoint.schema.operationId}: add them to listRequests`);
    // The partial cursor clients send, where the list's cursor has both keys.
    const blockAndIndex = ["block_number", "index"].every((name) => queryParameters(endpoint).includes(name));
    for (const { params, ...request } of await requests(db))
      cases.push({ ...request, endpoint, path: endpointPath(endpoint, params), blockAndIndex });
  }
  return cases;
}

/** The URL of a case with extra query parameters (a cursor), filters first. */
export function caseUrl(entry: Pick<ListCase, "path" | "query">, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams({ ...entry.query, ...extra }).toString();
  return query ? `${entry.path}?${query}` : entry.path;
}
