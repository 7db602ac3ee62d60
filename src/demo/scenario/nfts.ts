import { call, deployed, pick, type Scenario } from "./context.ts";
import { mineTogether, type PlannedTransaction } from "./mine.ts";

/** One block of ERC-721 activity: one or two mints, a transfer of an earlier token, every third round a burn. */
export async function nftActivity(scenario: Scenario, round: number): Promise<void> {
  const { accounts, collectible } = scenario;
  const address = deployed(scenario, "collectible");
  const plans: PlannedTransaction[] = [];

  const mintCount = round % 3 === 0 ? 2 : 1;
  for (let index = 0; index < mintCount; index++) {
    const tokenId = collectible.nextTokenId++;
    const holder = pick(accounts, round + index + 1, accounts[0]);
    collectible.holders.set(tokenId, holder);
    plans.push({
      from: accounts[0],
      to: address,
      data: call(scenario, "DemoCollectible", "mint", [holder, collectibleTokenUri(tokenId)]),
      // Gas estimation runs against the last block, where the previous mint in this block did not happen yet.
      gas: 2_000_000n,
      example: "collectibleMint",
    });
  }

  // Move a token minted in an earlier round, so the transfer does not depend on this block.
  const tokenId = BigInt(round);
  const holder = collectible.holders.get(tokenId);
  if (holder !== undefined) {
    const recipient = pick(accounts, round + 4, holder, accounts[0]);
    collectible.holders.set(tokenId, recipient);
    const functionName = round % 2 === 0 ? "safeTransferFrom" : "transferFrom";
    plans.push({
      from: holder,
      to: address,
      data: call(scenario, "DemoCollectible", functionName, [holder, recipient, tokenId]),
      example: "collectibleTransfer",
    });
  }

  // Burn the token the previous round moved; it is never moved again. Token 1 keeps its metadata for tests.
  const burnedId = BigInt(round - 1);
  const burner = collectible.holders.get(burnedId);
  if (round % 3 === 0 && burnedId > 1n && burner !== undefined) {
    collectible.holders.delete(burnedId);
    plans.push({
      from: burner,
      to: address,
      data: call(scenario, "DemoCollectible", "burn", [burnedId]),
      example: "collectibleBurn",
    });
  }
  await mineTogether(scenario, plans);
}

/** The `data:application/json` URI of collectible `tokenId`, with an SVG image of its own hue. */
export function collectibleTokenUri(tokenId: bigint): string {
  const hue = Number((tokenId * 47n) % 360n);
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">` +
    `<rect width="100" height="100" fill="hsl(${hue},70%,55%)"/>` +
    `<text x="50" y="58" font-size="24" text-anchor="middle" fill="white">#${tokenId}</text></svg>`;
  const metadata = {
    name: `Sextant Demo Collectible #${tokenId}`,
    description: "A collectible minted by the Sextant demo scenario.",
    image: `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`,
    attributes: [{ trait_type: "Hue", value: hue }],
  };
  return `data:application/json;base64,${Buffer.from(JSON.stringify(metadata)).toString("base64")}`;
}
