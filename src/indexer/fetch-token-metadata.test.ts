import { once } from "node:events";
import { createServer, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, BlockList } from "node:net";
import type { fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchTokenMetadata, mediaUrls, resolveTokenUri } from "./fetch-token-metadata.ts";
import { type ResolveName, refusedAddresses } from "./metadata-hosts.ts";

const gateway = "https://gateway.test/ipfs/";
const cid = "QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG";

describe("resolveTokenUri", () => {
  it("substitutes {id} with 64 lowercase hex digits", () => {
    expect(resolveTokenUri("https://x.test/{id}.json", 0xabcn, { ipfsGateway: gateway })).toBe(
      `https://x.test/${"0".repeat(61)}abc.json`,
    );
  });

  it("leaves {id} alone without an id (ERC-721)", () => {
    expect(resolveTokenUri("https://x.test/{id}.json", undefined, { ipfsGateway: gateway })).toBe(
      "https://x.test/{id}.json",
    );
  });

  it("maps ipfs://, ipfs://ipfs/, bare CIDs and ar:// to gateways", () => {
    const options = { ipfsGateway: gateway };
    expect(resolveTokenUri(`ipfs://${cid}/1.json`, undefined, options)).toBe(`${gateway}${cid}/1.json`);
    expect(resolveTokenUri(`ipfs://ipfs/${cid}`, undefined, options)).toBe(`${gateway}${cid}`);
    expect(resolveTokenUri(`IPFS://${cid}`, undefined, options)).toBe(`${gateway}${cid}`);
    expect(resolveTokenUri(`  ${cid}/2  `, undefined, options)).toBe(`${gateway}${cid}/2`);
    expect(resolveTokenUri(`ipfs://${cid}`, undefined, { ipfsGateway: "http://127.0.0.1:8080/ipfs" })).toBe(
      `http://127.0.0.1:8080/ipfs/${cid}`,
    );
    expect(resolveTokenUri("ar://abc/1", undefined, options)).toBe("https://arweave.net/abc/1");
    expect(resolveTokenUri("https://x.test/a", undefined, options)).toBe("https://x.test/a");
  });
});

describe("fetchTokenMetadata from data: URIs", () => {
  const options = { ipfsGateway: gateway, timeoutMs: 1_000, maxBytes: 1_000 };
  const json = { name: "A 100%", image: "data:image/svg+xml;base64,PHN2Zz4=" };

  it("decodes base64", async () => {
    const uri = `data:application/json;base64,${Buffer.from(JSON.stringify(json)).toString("base64")}`;
    expect(await fetchTokenMetadata(uri, options)).toEqual({ metadata: json });
  });

  it("decodes percent-encoded and raw plain JSON", async () => {
    const encoded = `data:application/json,${encodeURIComponent(JSON.stringify(json))}`;
    expect(await fetchTokenMetadata(encoded, options)).toEqual({ metadata: json });
    // "100%" is not a valid escape: the payload is taken as it is.
    expect(await fetchTokenMetadata(`data:application/json,${JSON.stringify(json)}`, options)).toEqual({
      metadata: json,
    });
  });

  it("decodes ;utf8 and ;charset=utf-8", async () => {
    const text = JSON.stringify({ name: "Ünïcödé ✓" });
    expect(await fetchTokenMetadata(`data:application/json;utf8,${text}`, options)).toEqual({
      metadata: { name: "Ünïcödé ✓" },
    });
    expect(await fetchTokenMetadata(`data:application/json;charset=utf-8,${text}`, options)).toEqual({
      metadata: { name: "Ünïcödé ✓" },
    });
  });

  it("accepts a URI that is the JSON itself", async () => {
    expect(await fetchTokenMetadata('{"name":"inline"}', options)).toEqual({ metadata: { name: "inline" } });
  });

  it("reports bad data as short errors", async () => {
    expect(await fetchTokenMetadata("data:application/json;base64,***", options)).toEqual({
      error: "invalid base64 in data: URI",
      retryable: false,
    });
    expect(await fetchTokenMetadata("data:application/json,{nope", options)).toEqual({
      error: "invalid JSON",
      retryable: false,
    });
    expect(await fetchTokenMetadata("data:application/json,[1,2]", options)).toEqual({
      error: "metadata is not a JSON object",
      retryable: false,
    });
    expect(await fetchTokenMetadata("data:text/html,<p>hi</p>", options)).toEqual({
      error: "unexpected content type text/html",
      retryable: false,
    });
    expect(await fetchTokenMetadata("", options)).toEqual({ error: "empty token URI", retryable: false });
    // The object and 127 arrays in it are 128 levels, as deep as metadata may go; one more is refused.
    const nested = (levels: number) => `{"a":${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}}`;
    expect(await fetchTokenMetadata(nested(128), options)).toHaveProperty("metadata.a");
    expect(await fetchTokenMetadata(nested(129), options)).toEqual({
      error: "metadata nested too deeply",
      retryable: false,
    });
    expect(await fetchTokenMetadata("ftp://x.test/1", options)).toEqual({
      error: "unsupported URI scheme ftp:",
      retryable: false,
    });
  });
});

describe("fetchTokenMetadata over HTTP", () => {
  let server: Server;
  let base: string;
  // These servers are on loopback, where token URIs may not go by default.
  const options = { ipfsGateway: gateway, timeoutMs: 300, maxBytes: 10_000, refused: null };
  const guarded = { ipfsGateway: gateway, timeoutMs: 300, maxBytes: 10_000 };

  function send(response: ServerResponse, status: number, type: string, body: string | Buffer) {
    response.writeHead(status, { "content-type": type }).end(body);
  }

  beforeAll(async () => {
    server = createServer((request, response) => {
      const path = request.url ?? "/";
      if (path === "/ok.json") return send(response, 200, "application/json", '{"name":"ok"}');
      if (path === "/redirect") return response.writeHead(302, { location: "/ok.json" }).end();
      if (path === "/loop") return response.writeHead(302, { location: "/loop" }).end();
      // A gateway that sends the content's request on to a host of its network.
      if (path === `/ipfs/${cid}/elsewhere`)
        return response.writeHead(301, { location: `http://${request.headers.host}/ok.json` }).end();
      if (path === `/ipfs/${cid}/7`) return send(response, 200, "application/json", '{"name":"from ipfs"}');
      if (path === "/plain") return send(response, 200, "text/plain; charset=utf-8", '{"name":"plain"}');
      if (path === "/404") return send(response, 404, "text/plain", "not found");
      if (path === "/500") return send(response, 500, "text/plain", "oops");
      if (path === "/429") return send(response, 429, "text/plain", "slow down");
      if (path === "/408") return send(response, 408, "text/plain", "request timeout");
      if (path === "/html") return send(response, 200, "text/html", "<html></html>");
      if (path === "/image.png") return send(response, 200, "image/png", Buffer.alloc(100));
      if (path === "/invalid") return send(response, 200, "application/json", "{not json");
      if (path === "/array") return send(response, 200, "application/json", "[]");
      if (path === "/slow") {
        const timer = setTimeout(() => send(response, 200, "application/json", "{}"), 2_000);
        response.on("close", () => clearTimeout(timer));
        return;
      }
      if (path === "/slow-body") {
        // Headers at once, the body never finishes.
        response.writeHead(200, { "content-type": "application/json" });
        response.write('{"name":');
        return;
      }
      if (path === "/big") {
        // Chunked, so only counting the bytes read can catch it.
        response.writeHead(200, { "content-type": "application/json" });
        response.write(`{"junk":"`);
        for (let i = 0; i < 100; i++) response.write("x".repeat(1_000));
        return response.end('"}');
      }
      if (path === "/big-declared") {
        return send(response, 200, "application/json", `{"junk":"${"x".repeat(20_000)}"}`);
      }
      const match = /^\/1155\/([0-9a-f]{64})\.json$/.exec(path);
      if (match) {
        return send(
          response,
          200,
          "application/json",
          JSON.stringify({ name: match[1], image: "/{id}.png" }),
        );
      }
      send(response, 404, "text/plain", "no route");
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    server.close();
  });

  it("reads JSON, also when labelled text/plain", async () => {
    expect(await fetchTokenMetadata(`${base}/ok.json`, options)).toEqual({ metadata: { name: "ok" } });
    expect(await fetchTokenMetadata(`${base}/plain`, options)).toEqual({ metadata: { name: "plain" } });
  });

  it("reports HTTP errors, retryable only for 408, 429 and 5xx", async () => {
    expect(await fetchTokenMetadata(`${base}/404`, options)).toEqual({ error: "HTTP 404", retryable: false });
    expect(await fetchTokenMetadata(`${base}/500`, options)).toEqual({ error: "HTTP 500", retryable: true });
    expect(await fetchTokenMetadata(`${base}/429`, options)).toEqual({ error: "HTTP 429", retryable: true });
    expect(await fetchTokenMetadata(`${base}/408`, options)).toEqual({ error: "HTTP 408", retryable: true });
  });

  it("times out waiting for headers or for the body", async () => {
    const started = Date.now();
    expect(await fetchTokenMetadata(`${base}/slow`, options)).toEqual({
      error: "timed out after 300 ms",
      retryable: true,
    });
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(await fetchTokenMetadata(`${base}/slow-body`, options)).toEqual({
      error: "timed out after 300 ms",
      retryable: true,
    });
  });

  it("throws the reason of a signal that stops it, as no error of the URI's", async () => {
    const stop = new Error("round over");
    for (const path of ["/slow", "/slow-body"]) {
      const controller = new AbortController();
      const started = Date.now();
      const fetching = fetchTokenMetadata(`${base}${path}`, { ...options, signal: controller.signal });
      setTimeout(() => controller.abort(stop), 50);
      await expect(fetching).rejects.toBe(stop);
      expect(Date.now() - started).toBeLessThan(300);
    }
  });

  it("stops reading past maxBytes", async () => {
    const tooBig = { error: "body larger than 10000 bytes", retryable: false };
    expect(await fetchTokenMetadata(`${base}/big`, options)).toEqual(tooBig);
    expect(await fetchTokenMetadata(`${base}/big-declared`, options)).toEqual(tooBig);
  });

  it("rejects HTML and takes an image as the image", async () => {
    expect(await fetchTokenMetadata(`${base}/html`, options)).toEqual({
      error: "unexpected content type text/html",
      retryable: false,
    });
    expect(await fetchTokenMetadata(`${base}/image.png`, options)).toEqual({
      metadata: { image: `${base}/image.png` },
    });
  });

  it("rejects invalid JSON and non-objects", async () => {
    expect(await fetchTokenMetadata(`${base}/invalid`, options)).toEqual({
      error: "invalid JSON",
      retryable: false,
    });
    expect(await fetchTokenMetadata(`${base}/array`, options)).toEqual({
      error: "metadata is not a JSON object",
      retryable: false,
    });
  });

  it("substitutes an ERC-1155 id in the URI and in the metadata", async () => {
    const hex = `${"0".repeat(62)}2a`;
    expect(await fetchTokenMetadata(`${base}/1155/{id}.json`, { ...options, tokenId: 42n })).toEqual({
      metadata: { name: hex, image: `/${hex}.png` },
    });
  });

  it("fetches ipfs:// through the gateway", async () => {
    expect(
      await fetchTokenMetadata(`ipfs://ipfs/${cid}`, { ...options, ipfsGateway: `${base}/ipfs/` }),
    ).toEqual({ error: "HTTP 404", retryable: false });
    const seen: string[] = [];
    const recording = (async (input: string | URL | Request) => {
      seen.push(String(input));
      return new Response('{"name":"from ipfs"}', { headers: { "content-type": "text/plain" } });
    }) as typeof undiciFetch;
    expect(await fetchTokenMetadata(`ipfs://${cid}/7`, { ...options, fetch: recording })).toEqual({
      metadata: { name: "from ipfs" },
    });
    expect(seen).toEqual([`${gateway}${cid}/7`]);
  });

  it("follows redirects, at most five", async () => {
    expect(await fetchTokenMetadata(`${base}/redirect`, options)).toEqual({ metadata: { name: "ok" } });
    expect(await fetchTokenMetadata(`${base}/loop`, options)).toEqual({
      error: "more than 5 redirects",
      retryable: false,
    });
  });

  it("by default refuses URIs that reach loopback, private or link-local addresses, by name or by number", async () => {
    const { port } = new URL(base);
    const refusal = (host: string, address: string) => ({
      error: `host ${host} is ${address}, an address token URIs may not reach`,
      retryable: false,
    });
    expect(await fetchTokenMetadata(`${base}/ok.json`, guarded)).toEqual(refusal("127.0.0.1", "127.0.0.1"));
    expect(await fetchTokenMetadata(`http://[::ffff:127.0.0.1]:${port}/ok.json`, guarded)).toEqual(
      refusal("::ffff:7f00:1", "::ffff:7f00:1"),
    );
    expect(await fetchTokenMetadata(`http://localhost:${port}/ok.json`, guarded)).toMatchObject({
      error: expect.stringMatching(/^host localhost is (127\.0\.0\.1|::1), /),
    });
    // Refused before any connection: the cloud metadata service, and a private network's host.
    expect(await fetchTokenMetadata("http://169.254.169.254/latest/meta-data/", guarded)).toEqual(
      refusal("169.254.169.254", "169.254.169.254"),
    );
    expect(await fetchTokenMetadata("http://10.1.2.3/1.json", guarded)).toEqual(
      refusal("10.1.2.3", "10.1.2.3"),
    );
    // And the ranges an operator adds.
    expect(
      await fetchTokenMetadata("http://8.8.8.8/1.json", {
        ...guarded,
        refused: refusedAddresses(["8.8.8.0/24"]),
      }),
    ).toEqual(refusal("8.8.8.8", "8.8.8.8"));
  });

  it("fetches through the operator's gateway wherever it is, but not a redirect from it to a refused host", async () => {
    const throughGateway = { ...guarded, ipfsGateway: `${base}/ipfs/` };
    expect(await fetchTokenMetadata(`ipfs://${cid}/7`, throughGateway)).toEqual({
      metadata: { name: "from ipfs" },
    });
    expect(await fetchTokenMetadata(`ipfs://${cid}/elsewhere`, throughGateway)).toEqual({
      error: "host 127.0.0.1 is 127.0.0.1, an address token URIs may not reach",
      retryable: false,
    });
  });

  it("connects to the address it checked, whatever the name answers when looked up again (DNS rebinding)", async () => {
    // One port on two loopback addresses: 127.0.0.1 stands for a public host, as the list below refuses
    // only 127.0.0.2, the private one the name is made to answer once it has been checked.
    const requests = { public: 0, private: 0 };
    const serve = (name: keyof typeof requests) =>
      createServer((_request, response) => {
        requests[name]++;
        send(response, 200, "application/json", JSON.stringify({ server: name }));
      });
    // The port is chosen on 127.0.0.1, where every other test's sockets are, then taken on 127.0.0.2, where none
    // are: chosen the other way round, it was once in use on 127.0.0.1 already (EADDRINUSE).
    const publicServer = serve("public").listen(0, "127.0.0.1");
    await once(publicServer, "listening");
    const { port } = publicServer.address() as AddressInfo;
    const privateServer = serve("private").listen(port, "127.0.0.2");
    await once(privateServer, "listening");
    const refused = new BlockList();
    refused.addAddress("127.0.0.2", "ipv4");
    const lookups: string[] = [];
    const resolve: ResolveName = async (hostname) => {
      lookups.push(hostname);
      return [{ address: lookups.length === 1 ? "127.0.0.1" : "127.0.0.2", family: 4 }];
    };
    const rebinding = { ipfsGateway: gateway, timeoutMs: 1_000, maxBytes: 10_000, refused, resolve };
    try {
      expect(await fetchTokenMetadata(`http://rebind.test:${port}/1.json`, rebinding)).toEqual({
        metadata: { server: "public" },
      });
      expect(await fetchTokenMetadata(`http://rebound.test:${port}/1.json`, rebinding)).toEqual({
        error: "host rebound.test is 127.0.0.2, an address token URIs may not reach",
        retryable: false,
      });
      // Each name looked up once, by the connection itself: no earlier lookup's answer let it through.
      expect(lookups).toEqual(["rebind.test", "rebound.test"]);
      expect(requests).toEqual({ public: 1, private: 0 });
    } finally {
      privateServer.close();
      publicServer.close();
      privateServer.closeAllConnections();
      publicServer.closeAllConnections();
    }
  });

  it("reports a refused connection as retryable", async () => {
    const closed = createServer();
    closed.listen(0, "127.0.0.1");
    await once(closed, "listening");
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, "close");
    expect(await fetchTokenMetadata(`http://127.0.0.1:${port}/x`, options)).toEqual({
      error: "request failed: ECONNREFUSED",
      retryable: true,
    });
  });
});

describe("mediaUrls", () => {
  it("derives the API's media links as Blockscout does", () => {
    expect(
      mediaUrls({
        image: `ipfs://${cid}/a b.png`,
        animation_url: "ipfs://ipfs/Qmx/anim.mp4",
        external_url: "https://app.test/1",
      }),
    ).toEqual({
      image_url: `https://ipfs.io/ipfs/${cid}/a%20b.png`,
      animation_url: "https://ipfs.io/ipfs/Qmx/anim.mp4",
      external_app_url: "https://app.test/1",
    });
  });

  it("prefers image_url, falls back to properties.image, and blanks to null", () => {
    expect(mediaUrls({ image_url: "https://a.test/1.png", image: "https://a.test/2.png" }).image_url).toBe(
      "https://a.test/1.png",
    );
    expect(mediaUrls({ properties: { image: { description: "https://a.test/3.png" } } }).image_url).toBe(
      "https://a.test/3.png",
    );
    expect(mediaUrls({ image: ["https://a.test/4.png"] }).image_url).toBe("https://a.test/4.png");
    expect(mediaUrls({ image: "  ", external_url: " " })).toEqual({
      image_url: null,
      animation_url: null,
      external_app_url: null,
    });
    expect(mediaUrls(null)).toEqual({ image_url: null, animation_url: null, external_app_url: null });
    expect(mediaUrls({ image: `ipfs://${cid}` }, { ipfsGateway: gateway }).image_url).toBe(
      `${gateway}${cid}`,
    );
  });
});
