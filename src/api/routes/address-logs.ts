import type { FastifyInstance } from "fastify";
import type { Address } from "viem";
import { listAddressLogs } from "../../db/queries/address-logs.ts";
import { findAddresses } from "../../db/queries/addresses.ts";
import { findContractAbis } from "../../db/queries/contract-abis.ts";
import { pageSize, toPage } from "../paging.ts";
import {
  addressHashParams,
  bigintCursor,
  commonListQuery,
  cursorInteger,
  hashPattern,
  indexCursor,
  lowerHex,
} from "../params.ts";
import { endpointDocs } from "../schemas/endpoints.ts";
import type { ApiContext } from "../server.ts";
import { logAddresses, renderLog } from "../views/log.ts";

type Query = { topic?: string; block_number?: string; index?: string };

const querystring = {
  type: "object",
  additionalProperties: false,
  properties: {
    topic: { type: "string", pattern: hashPattern },
    block_number: bigintCursor,
    index: indexCursor,
    ...commonListQuery,
  },
} as const;

/** Endpoint 3: the logs an address emitted, newest first, optionally those carrying one topic. */
export function addressLogsRoute(app: FastifyInstance, { db }: ApiContext) {
  app.get<{ Params: { address_hash_param: string }; Querystring: Query }>(
    "/api/v2/addresses/:address_hash_param/logs",
    { schema: { ...endpointDocs.addressLogs, params: addressHashParams, querystring } },
    async (request) => {
      const address = lowerHex(request.params.address_hash_param);
      const rows = await listAddressLogs(db, {
        address,
        topic: request.query.topic === undefined ? undefined : lowerHex(request.query.topic),
        cursor: {
          block_number: cursorInteger(request.query.block_number),
          index: cursorInteger(request.query.index),
        },
        limit: pageSize + 1,
      });
      const [addresses, abis] = await Promise.all([
        findAddresses(db, rows.flatMap(logAddresses)),
        // Every log of the page has the same emitter.
        findContractAbis(db, [address]),
      ]);
      return toPage(
        rows,
        (row) => renderLog(row, addresses, abis.get(row.address as Address)?.abi ?? null),
        (last) => ({ block_number: last.block_number, index: last.log_index }),
      );
    },
  );
}
