import { Agent, get } from "node:http";

// One connection per server, kept alive, as the benchmarks' sequential requests are.
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** Return type of {@link readAnswer}: the answer's status and the bytes of its body. */
export type ReadAnswerReturnType = { status: number; bytes: number };

/**
 * Sends a GET and reads every byte of the answer without decoding it, as wrk and autocannon time a request:
 * what is timed is the server's work and the transfer. `fetch` and `text()` would add their streams and a
 * string of the whole body, in the benchmark's process, which is also the server's: about a sixth of a
 * megabyte page's time (docs/performance.md, "A ninth machine").
 */
export function readAnswer(url: string): Promise<ReadAnswerReturnType> {
  return new Promise((resolve, reject) => {
    get(url, { agent }, (response) => {
      let bytes = 0;
      response.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, bytes }));
      response.on("error", reject);
    }).on("error", reject);
  });
}
