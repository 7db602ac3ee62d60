import { BaseError } from "../errors.ts";

/** Any failure to get an answer from the node. `retryable` says whether asking again can help. */
export class RpcError extends BaseError {
  override name = "RpcError";
  readonly retryable: boolean = false;
}

/** The connection failed, was reset, or the node answered with something that is not JSON-RPC. */
export class RpcTransportError extends RpcError {
  override name = "RpcTransportError";
  override readonly retryable = true;
}

/** The request took longer than the configured timeout. */
export class RpcTimeoutError extends RpcError {
  override name = "RpcTimeoutError";
  override readonly retryable = true;
}

export type RpcHttpErrorParameters = { status: number; body: string };

/** The node answered with an HTTP error; 429 and 5xx are worth retrying, the rest are not. */
export class RpcHttpError extends RpcError {
  override name = "RpcHttpError";
  override readonly retryable: boolean;
  readonly status: number;

  constructor({ status, body }: RpcHttpErrorParameters) {
    super(`node answered HTTP ${status}`, { details: body.slice(0, 300) });
    this.status = status;
    this.retryable = status === 429 || status >= 500;
  }
}

export type RpcResponseErrorParameters = { method: string; code: number; message: string; data?: unknown };

/** The node answered the call with a JSON-RPC error object. */
export class RpcResponseError extends RpcError {
  override name = "RpcResponseError";
  override readonly retryable: boolean;
  readonly code: number;
  readonly method: string;

  constructor({ method, code, message, data }: RpcResponseErrorParameters) {
    super(`${method} failed: ${message} (code ${code})`, {
      details: data === undefined ? undefined : JSON.stringify(data).slice(0, 300),
    });
    this.code = code;
    this.method = method;
    // -32005 is the common "limit exceeded" code; -32603 is an internal error, often a node under load.
    this.retryable = code === -32005 || code === -32603 || code === 429;
  }
}

/** The node answered, but with data that contradicts itself or the request; refetching may help. */
export class RpcInvalidAnswerError extends RpcError {
  override name = "RpcInvalidAnswerError";
  override readonly retryable = true;
}

/** JSON-RPC's "method not found" family: the node does not offer this method at all. */
export function isMethodNotSupported(error: unknown): boolean {
  return (
    error instanceof RpcResponseError &&
    (error.code === -32601 || error.code === -32004 || /not (found|supported|available)/i.test(error.message))
  );
}
