import type { FastifyInstance, FastifyReply, FastifyRequest, RouteGenericInterface } from "fastify";
import type { ApiContext } from "./context.ts";
import type { JsonSchema } from "./schemas/common.ts";

/** What request validation and the OpenAPI document read from an endpoint. */
export type EndpointSchema = {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  /** The path parameters, each with its description. */
  params?: JsonSchema;
  /** The query parameters, each with its description; any other is answered with a 422. */
  querystring: JsonSchema;
  /** A schema for every status the endpoint answers. */
  response: Record<number, JsonSchema>;
};

export type DefineEndpointParameters<Route extends RouteGenericInterface> = {
  /** The endpoint's number in the interface document; its description starts with it. */
  number: number;
  method: "GET";
  /** The path as fastify writes it: `:name` for a path parameter. */
  path: string;
  schema: EndpointSchema;
  /** The OpenAPI document's component schemas that `schema.response` refers to and no shared module has. */
  components?: Record<string, JsonSchema>;
  /**
   * Whether the answers depend on the database alone, so that a page can be served again while the data is
   * unchanged, and is computed in one of the API's places (`ApiContext.admit`); true when absent.
   */
  cacheable?: (context: ApiContext) => boolean;
  /** Answers a validated request; what it returns is sent as JSON unless it sent the reply itself. */
  handler: (context: ApiContext, request: FastifyRequest<Route>, reply: FastifyReply) => Promise<unknown>;
};

/** An endpoint of the API contract, as the server registers it and the tests enumerate it. */
export type Endpoint = Omit<DefineEndpointParameters<RouteGenericInterface>, "handler" | "components"> & {
  components: Record<string, JsonSchema>;
  /** Adds the endpoint's route to `app`, its handler answering with `context`. */
  register(app: FastifyInstance, context: ApiContext): void;
};

/**
 * Defines an endpoint in one place: its path, its parameters, its responses and documentation, and its
 * handler. `Route` types the handler's `request.params` and `request.query`, which `schema` validates.
 */
export function defineEndpoint<Route extends RouteGenericInterface>({
  handler,
  components = {},
  ...definition
}: DefineEndpointParameters<Route>): Endpoint {
  const schema = {
    ...definition.schema,
    description: `Endpoint ${definition.number}. ${definition.schema.description}`,
  };
  return {
    ...definition,
    schema,
    components,
    register(app, context) {
      // `schema` validates what `Route` says the parameters are.
      const answer = (request: FastifyRequest, reply: FastifyReply) =>
        handler(context, request as FastifyRequest<Route>, reply);
      // Only work on the database and the CPU takes a place: an answer that waits on another service (an
      // interpretation service) would hold its place while it waits.
      const admitted = definition.cacheable?.(context) ?? true;
      app.route({
        method: definition.method,
        url: definition.path,
        schema,
        handler: admitted ? (request, reply) => context.admit(() => answer(request, reply)) : answer,
      });
    },
  };
}
