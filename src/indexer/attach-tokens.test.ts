import { describe, expect, it } from "vitest";
import type { TokenTransferType } from "../decode/token-transfer.ts";
import { tokenType } from "./attach-tokens.ts";

const forms = (...types: TokenTransferType[]) => new Map(types.map((type, i) => [type, i]));

describe("tokenType", () => {
  it("follows the transfer events a token emitted", () => {
    expect(tokenType(forms("ERC-20"))).toBe("ERC-20");
    expect(tokenType(forms("ERC-721"))).toBe("ERC-721");
    expect(tokenType(forms("ERC-1155"))).toBe("ERC-1155");
    expect(tokenType(forms("ERC-20", "ERC-721"))).toBe("ERC-404");
    expect(tokenType(forms("ERC-1155", "ERC-20"))).toBe("ERC-1155");
  });

  it("takes what a new token says of itself: decimals or the ERC-721 interface make ERC-404", () => {
    expect(tokenType(forms("ERC-721"), { decimals: 18, supportsErc721: true })).toBe("ERC-404");
    expect(tokenType(forms("ERC-721"), { decimals: null, supportsErc721: true })).toBe("ERC-721");
    expect(tokenType(forms("ERC-721"), { decimals: 0, supportsErc721: null })).toBe("ERC-721");
    expect(tokenType(forms("ERC-20"), { decimals: 18, supportsErc721: true })).toBe("ERC-404");
    expect(tokenType(forms("ERC-20"), { decimals: 18, supportsErc721: false })).toBe("ERC-20");
    expect(tokenType(forms("ERC-20"), { decimals: 6, supportsErc721: null })).toBe("ERC-20");
  });

  it("makes a token seen only through Deposit and Withdrawal (no form) an ERC-20, whatever it says", () => {
    expect(tokenType(forms(), { decimals: 18, supportsErc721: true })).toBe("ERC-20");
  });
});
