import type { Endpoint } from "../../src/api/define-endpoint.ts";
import { endpoints } from "../../src/api/endpoints/index.ts";

/** The endpoint of `operationId`; throws when the list has none, so that a stale name fails its test. */
export function endpointNamed(operationId: string): Endpoint {
  const found = endpoints.find((endpoint) => endpoint.schema.operationId === operationId);
  if (!found) throw new Error(`no endpoint has the operationId ${operationId}`);
  return found;
}

/** The endpoint of the interface document's number `number`; throws when the list has none. */
export function endpointNumbered(number: number): Endpoint {
  const found = endpoints.find((endpoint) => endpoint.number === number);
  if (!found) throw new Error(`no endpoint has the number ${number}`);
  return found;
}

/** The names of the endpoint's path parameters, in path order. */
export function pathParameters(endpoint: Endpoint): string[] {
  return [...endpoint.path.matchAll(/:(\w+)/g)].map(([, name]) => name as string);
}

/** The names of the query parameters the endpoint accepts. */
export function queryParameters(endpoint: Endpoint): string[] {
  return Object.keys((endpoint.schema.querystring.properties ?? {}) as Record<string, unknown>);
}

/** The endpoint's path as the OpenAPI document writes it: `{name}` for a path parameter. */
export function documentPath(endpoint: Endpoint): string {
  return endpoint.path.replace(/:(\w+)/g, "{$1}");
}

/**
 * The endpoint's path with each parameter replaced by its value in `values`; throws when a parameter has
 * none, so that an endpoint with a new kind of parameter makes its test say what it lacks.
 */
export function endpointPath(endpoint: Endpoint, values: Record<string, string>): string {
  return endpoint.path.replace(/:(\w+)/g, (_, name: string) => {
    if (!Object.hasOwn(values, name))
      throw new Error(`no value for the path parameter ${name} of ${endpoint.schema.operationId}`);
    return values[name] as string;
  });
}

/** A well-formed value of each path parameter: an address no one uses, block 1, id 1, an unknown hash. */
export const wellFormedPathValues: Record<string, string> = {
  address_hash_param: "0x000000000000000000000000000000000000dEaD",
  block_hash_or_number_param: "1",
  token_id_param: "1",
  transaction_hash_param: `0x${"ab".repeat(32)}`,
};

/** The lists among the endpoints: those that page, which every list does with Blockscout's `items_count`. */
export const listEndpoints = endpoints.filter((endpoint) =>
  queryParameters(endpoint).includes("items_count"),
);
