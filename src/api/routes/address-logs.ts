import type { FastifyInstance } from "fastify";
import { listAddressLogs } from "../../db/queries/address-logs.ts";
import { findAddresses } from "../../db/queries/addresses.ts";
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
    { schema: { params: addressHashParams, querystring } },
    async (request) => {
      const rows = await listAddressLogs(db, {
        address: lowerHex(request.params.address_hash_param),
        topic: request.query.topic === undefined ? undefined : lowerHex(request.query.topic),
        cursor: {
          block_number: cursorInteger(request.query.block_number),
          index: cursorInteger(request.query.index),
        },
        limit: pageSize + 1,
      });
      const addresses = await findAddresses(db, rows.flatMap(logAddresses));
      return toPage(
        rows,
        (row) => renderLog(row, addresses),
        (last) => ({ block_number: last.block_number, index: last.log_index }),
      );
    },
  );
}
