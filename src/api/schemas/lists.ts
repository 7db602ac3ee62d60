import { integer, type JsonSchema, object, ref, refTo } from "./common.ts";
import { commonErrorResponses, invalidParametersResponse, notFoundResponse } from "./errors.ts";

/** `items_count` of a `next_page_params`. */
export const itemsCount = integer("Items on the page just read (always 50).", 50);

/** `block_number` of a `next_page_params` ordered by block. */
export const lastBlockNumber = integer("Block number of the last item.", 285);

/** What the description of a list about an address adds. */
export const emptyForUnknown = "A valid address never seen on chain gives 200 with an empty page.";

/**
 * A list page: 50 items at most and the cursor of the next page, null on the last. The cursor is a
 * component whose keys are the query parameters to send back; its numbers are JSON numbers, accepted
 * back as digits.
 */
export function listPage(item: string, cursor: string, description: string): JsonSchema {
  return object(
    {
      items: { type: "array", maxItems: 50, items: ref(item) },
      next_page_params: refTo(
        cursor,
        "Keys to send back as query parameters for the next page; null on the last page.",
        {
          nullable: true,
        },
      ),
    },
    { description },
  );
}

/** The responses of a list: the page component `pageName`, and 404 with what is not found if it can be. */
export function listResponses(
  pageName: string,
  description: string,
  notFound?: string,
): Record<number, JsonSchema> {
  const responses: Record<number, JsonSchema> = {
    200: refTo(pageName, description),
    422: invalidParametersResponse,
    ...commonErrorResponses,
  };
  if (notFound !== undefined) responses[404] = notFoundResponse(notFound);
  return responses;
}
