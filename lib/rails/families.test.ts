import { describe, expect, it } from "vitest";
import { FAMILIES } from "./families";
import type { CoinFacts, DepositFamily, RailFamily } from "./family";
import { paymentUri } from "./payment-uri";
import { COINS } from "./registry";

/** What every family must have, by kind: the registry's coins rely on each of these. */
const DEPOSIT_FAMILY_PARTS = [
  "chains",
  "settings",
  "addressNet",
  "paymentUri",
  "uriContext",
  "explorerTxUrl",
  "watchers",
] as const;
const X402_FAMILY_PARTS = ["settings", "rail"] as const;
const CHAIN_PARTS = ["settings", "read", "problems", "derive", "isValidAddress", "demoKey", "env"] as const;
const DEPOSIT_COIN_FACTS = [
  "code",
  "name",
  "network",
  "networkLabel",
  "chain",
  "decimals",
  "displayDecimals",
  "confirmations",
  "rateId",
  "demoRate",
  "explorerTxUrl",
] as const;
const X402_COIN_FACTS = [
  "code",
  "name",
  "network",
  "networkLabel",
  "decimals",
  "displayDecimals",
  "depositCoin",
];

const missing = (value: object, parts: readonly string[]) =>
  parts.filter((part) => (value as Record<string, unknown>)[part] === undefined);

/** Every part a family (and its chains and coins) lacks, named `family.part`; [] when it is complete. */
function missingParts(family: RailFamily, coins: readonly CoinFacts[]): string[] {
  const own = coins.filter((coin) => coin.family === family.id);
  if (family.method === "x402") {
    return [
      ...missing(family, X402_FAMILY_PARTS).map((part) => `${family.id}.${part}`),
      ...own.flatMap((coin) => missing(coin, X402_COIN_FACTS).map((fact) => `${coin.code}.${fact}`)),
    ];
  }
  return [
    ...missing(family, DEPOSIT_FAMILY_PARTS).map((part) => `${family.id}.${part}`),
    ...(family.chains ?? []).flatMap((chain) =>
      missing(chain, CHAIN_PARTS).map((part) => `${family.id}.${chain.chain}.${part}`),
    ),
    ...own.flatMap((coin) => [
      ...missing(coin, DEPOSIT_COIN_FACTS).map((fact) => `${coin.code}.${fact}`),
      ...(coin.method === "deposit" && !(family.chains ?? []).some((chain) => chain.chain === coin.chain)
        ? [`${coin.code}.chain (not one of ${family.id}'s)`]
        : []),
    ]),
  ];
}

describe("the coin families", () => {
  it("have every part their kind needs, for every coin the registry lists", () => {
    for (const coin of COINS) expect(FAMILIES[coin.family]?.id, coin.code).toBe(coin.family);
    for (const family of Object.values(FAMILIES)) expect(missingParts(family, COINS)).toEqual([]);
  });

  it("the check names what a family lacks", () => {
    const { watchers: _watchers, ...withoutWatcher } = FAMILIES.evm as DepositFamily;
    expect(missingParts(withoutWatcher as DepositFamily, COINS)).toEqual(["evm.watchers"]);
    const [chain] = (FAMILIES.utxo as DepositFamily).chains;
    const { derive: _derive, ...withoutDerive } = chain ?? ({} as never);
    const broken = {
      ...(FAMILIES.utxo as DepositFamily),
      chains: [withoutDerive],
    } as unknown as DepositFamily;
    expect(missingParts(broken, COINS)).toContain("utxo.bitcoin.derive");
    const { rateId: _rateId, ...withoutRate } = COINS.find((coin) => coin.code === "USDT") ?? ({} as never);
    expect(missingParts(FAMILIES.evm, [withoutRate as CoinFacts])).toEqual(["USDT.rateId"]);
  });

  it("each chain's demo key derives valid, distinct addresses, and configures itself", () => {
    for (const family of Object.values(FAMILIES)) {
      if (family.method !== "deposit") continue;
      for (const chain of family.chains) {
        const key = chain.demoKey();
        expect(chain.problems(key), chain.chain).toEqual([]);
        const [first, second] = [0, 1].map((index) => chain.derive(key, index, "main"));
        expect(first).not.toBe(second);
        expect(chain.isValidAddress(first ?? "", "main"), `${chain.chain} ${first}`).toBe(true);
        expect(chain.read(chain.env(key))).toEqual(key);
        expect(Object.keys(chain.env(key)).sort()).toEqual(Object.values(chain.settings).sort());
      }
    }
  });

  it("each coin's facts are usable: a rate, an explorer link, a payment URI in its family's form", () => {
    for (const coin of COINS as readonly CoinFacts[]) {
      expect(coin.decimals, coin.code).toBeGreaterThanOrEqual(coin.displayDecimals);
      if (coin.method !== "deposit") continue;
      const family = FAMILIES[coin.family] as DepositFamily;
      expect(coin.confirmations, coin.code).toBeGreaterThan(0);
      expect(coin.demoRate, coin.code).toMatch(/^\d+(\.\d+)?$/);
      expect(Number(coin.demoRate), coin.code).toBeGreaterThan(0);
      expect(coin.explorerTxUrl, coin.code).toContain("{tx}");
      if (coin.token) expect(family.settings.names, coin.code).toContain(coin.token.setting);
      const chain = family.chains.find((candidate) => candidate.chain === coin.chain);
      const address = chain?.derive(chain.demoKey(), 0, family.addressNet(coin.chain)) ?? "";
      const uri = paymentUri({
        coin: coin.code,
        address,
        amount: "1",
        amountUnits: 10n ** BigInt(coin.decimals),
        ...family.uriContext(coin),
      });
      expect(uri, coin.code).toMatch(/^[a-z]+:/);
      expect(uri, coin.code).toContain(address);
    }
  });

  it("without a node configured, no family runs a watcher", () => {
    for (const family of Object.values(FAMILIES)) {
      if (family.method === "deposit") expect(family.watchers({}), family.id).toEqual([]);
    }
  });
});
