import { Agent, get } from "node:http";

// One connection per server, kept alive, as the benchmarks' sequential requests are.
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/**
 * Sends a GET and reads every byte of the answer without decoding it, as wrk and autocannon time a request:
 * what is timed is the server's work and the transfer. `fetch` and `text()` would add their streams and a
 * string of the whole body, in the benchmark's process, which is also the server's: about a sixth of a
 * megabyte page's time (docs/performance.md, "A ninth machine"). Returns the body's length; an answer other
 * than a 200 with a body throws, so that a failing page stops a run instead of being timed.
 */
export function readAnswer(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { agent }, (response) => {
      let bytes = 0;
      response.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
      });
      response.on("end", () => {
        if (response.statusCode === 200 && bytes > 0) resolve(bytes);
        else reject(new Error(`HTTP ${response.statusCode} with ${bytes} bytes from ${url}`));
      });
      response.on("error", reject);
    }).on("error", reject);
  });
}
