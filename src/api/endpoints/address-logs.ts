import { listAddressLogs } from "../../db/queries/address-logs.ts";
import { findAddresses } from "../../db/queries/addresses.ts";
import { defineEndpoint } from "../define-endpoint.ts";
import { pageSize, toPage } from "../paging.ts";
import {
  addressHashParams,
  blockNumberCursor,
  commonListQuery,
  cursorInteger,
  documented,
  hashPattern,
  indexCursor,
  lowerHex,
} from "../params.ts";
import { demo, integer, object } from "../schemas/common.ts";
import { emptyForUnknown, itemsCount, lastBlockNumber, listPage, listResponses } from "../schemas/lists.ts";
import { logAddresses, renderLog } from "../views/log.ts";

type Query = { topic?: string; block_number?: string; index?: string };

/** Endpoint 3: the logs an address emitted, newest first, optionally those carrying one topic. */
export const addressLogs = defineEndpoint<{ Params: { address_hash_param: string }; Querystring: Query }>({
  number: 3,
  method: "GET",
  path: "/api/v2/addresses/:address_hash_param/logs",
  schema: {
    operationId: "addressLogs",
    summary: "Logs emitted by an address",
    description: `Logs the address emitted, newest first (block number, then log index, descending), optionally only those carrying \`topic\` at any position. ${emptyForUnknown}`,
    tags: ["addresses"],
    params: addressHashParams({ description: "Address of the emitting contract.", example: demo.erc20 }),
    querystring: {
      type: "object",
      additionalProperties: false,
      properties: {
        topic: documented(
          { type: "string", pattern: hashPattern },
          {
            description: "Only logs carrying this 32-byte topic, at any position.",
            example: demo.transferTopic,
          },
        ),
        block_number: blockNumberCursor,
        index: indexCursor("index of the last item"),
        ...commonListQuery,
      },
    },
    response: listResponses("LogsPage", "A page of logs."),
  },
  components: {
    BlockNumberAndIndexNextPageParams: object({
      block_number: lastBlockNumber,
      index: integer("Index of the last log in its block.", 3),
      items_count: itemsCount,
    }),
    LogsPage: listPage("Log", "BlockNumberAndIndexNextPageParams", "Logs."),
  },
  handler: async ({ db }, request) => {
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
    // Every log of the page has the same emitter.
    const addresses = await findAddresses(db, rows.flatMap(logAddresses), { withAbis: [address] });
    return toPage(
      rows,
      (row) => renderLog(row, addresses, addresses.get(row.address)?.abi ?? null),
      (last) => ({ block_number: last.block_number, index: last.log_index }),
    );
  },
});
