import { describe, expect, it } from "vitest";
import { COINS, DEPOSIT_COINS, isDepositCoin, networkLabel } from "./registry";

describe("the coin registry", () => {
  it("lists each deposit coin in the catalog as a deposit on the same network, and nothing else as one", () => {
    const deposits = COINS.filter((coin) => coin.method === "deposit");
    expect(deposits.map((coin) => coin.code).sort()).toEqual(Object.keys(DEPOSIT_COINS).sort());
    for (const coin of deposits) {
      if (!isDepositCoin(coin.code)) throw new Error(`${coin.code} has no deposit details`);
      expect(DEPOSIT_COINS[coin.code].network).toBe(coin.network);
    }
    expect(isDepositCoin("USDCBASE")).toBe(false);
    expect(isDepositCoin("toString")).toBe(false);
  });

  it("names networks as wallets do, telling a token apart from its chain's coin", () => {
    expect(networkLabel("ethereum", "ETH")).toBe("Ethereum mainnet");
    expect(networkLabel("ethereum", "USDT")).toBe("Ethereum (ERC-20 token)");
    expect(networkLabel("tron", "USDTTRC")).toBe("Tron (TRC-20 token)");
    expect(networkLabel("bitcoin", "BTC")).toBe("Bitcoin");
    expect(networkLabel("base", "USDCBASE")).toBe("Base");
    // A code no coin has (DAI would be the next token someone adds): the network's own name.
    expect(networkLabel("ethereum", "NOTACOIN")).toBe("Ethereum mainnet");
    expect(networkLabel("solana", "SOL")).toBe("solana");
    expect(networkLabel(null, "BTC")).toBe("—");
  });
});
