import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.ts";

describe("loadConfig: the hosts token URIs may reach", () => {
  it("keeps token URIs from reserved addresses unless told otherwise, and takes further CIDR ranges", () => {
    expect(loadConfig({ env: {} })).toMatchObject({ metadataHostFiltering: true, metadataCidrBlacklist: [] });
    const config = loadConfig({
      env: { INDEXER_TOKEN_INSTANCE_CIDR_BLACKLIST: "8.8.8.0/24, 2001:db8::/32" },
      flags: { "metadata-host-filtering": "false" },
    });
    expect(config).toMatchObject({
      metadataHostFiltering: false,
      metadataCidrBlacklist: ["8.8.8.0/24", "2001:db8::/32"],
    });
  });

  it("refuses a range that is not CIDR, naming it", () => {
    expect(() =>
      loadConfig({ env: { INDEXER_TOKEN_INSTANCE_CIDR_BLACKLIST: "8.8.8.0/24,8.8.8.8/33" } }),
    ).toThrow(
      new ConfigError(
        'INDEXER_TOKEN_INSTANCE_CIDR_BLACKLIST must be a comma-separated list of CIDR ranges, got "8.8.8.8/33"',
      ),
    );
  });
});
