import chromiumBinary from "@sparticuz/chromium";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createRpcClient } from "../src/rpc/client.ts";
import { at } from "./support/elements.ts";
import { type IndexedChain, indexIntoNewDatabase } from "./support/indexed-chain.ts";

/** The 13 endpoints, by the summary the docs page shows for each. */
const endpointTitles = [
  "Token balances of an address",
  "Transactions of an address",
  "Logs emitted by an address",
  "Withdrawals of a block",
  "Withdrawals received by an address",
  "Holders of a token",
  "Summary of a transaction",
  "Token transfers of the chain",
  "Holders of one token id",
  "ERC-4337 indexer status",
  "NFT collections of an address",
  "Internal transactions of an address",
  "Token transfers of an address",
];

describe("the docs page in headless Chromium", () => {
  let indexed: IndexedChain;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    indexed = await indexIntoNewDatabase("pglite", createRpcClient({ url: inject("demoRpcUrl") }));
    origin = await indexed.app.listen({ port: 0, host: "127.0.0.1" });
    // The Chromium that `npm install` brings: @sparticuz/chromium ships a headless build in its package and
    // unpacks it into the temporary directory on first use. Its recommended flags are for AWS Lambda
    // (one process, web security off); this page is tested with the browser's defaults.
    browser = await chromium.launch({
      executablePath: await chromiumBinary.executablePath(),
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await indexed?.close();
  });

  it("lists the 13 endpoints, runs one with Test Request and shows its 200, loading nothing from elsewhere", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const elsewhere: string[] = [];
    // Anything not served by this instance is refused and recorded: the page must work offline.
    await page.route(
      (url) => url.origin !== origin,
      (route) => {
        elsewhere.push(route.request().url());
        return route.abort();
      },
    );
    const apiCalls: { url: string; status: number }[] = [];
    page.on("response", (response) => {
      if (new URL(response.url()).pathname.startsWith("/api/v2/addresses/"))
        apiCalls.push({ url: response.url(), status: response.status() });
    });

    await page.goto(`${origin}/docs`);
    const sidebar = page.locator("nav, aside").first();
    for (const title of endpointTitles) {
      await expect.poll(() => sidebar.getByText(title, { exact: true }).count()).toBeGreaterThan(0);
    }

    // The first operation's "Test Request" opens the client with the documented examples filled in.
    await page
      .getByRole("button", { name: /Test Request/ })
      .first()
      .click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("button", { name: /^Send/ }).first().click();
    await expect.poll(() => dialog.textContent(), { timeout: 30_000 }).toMatch(/Status:\s*200 OK/);

    expect(apiCalls).toHaveLength(1);
    const apiCall = at(apiCalls, 0);
    expect(apiCall.url).toMatch(
      new RegExp(`^${origin}/api/v2/addresses/0x70997970C51812dc3A010C7d01b50e0d17dc79C8/transactions`),
    );
    expect(apiCall.status).toBe(200);
    expect(elsewhere).toEqual([]);
    await page.close();
  });
});
