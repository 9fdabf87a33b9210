import { ed25519 } from "@noble/curves/ed25519.js";
import { bytesToNumberLE } from "@noble/curves/utils.js";
import { ripemd160 } from "@noble/hashes/legacy.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, hexToBytes, randomBytes } from "@noble/hashes/utils.js";
import { base58xmr, createBase58check } from "@scure/base";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { describe, expect, it } from "vitest";
import {
  deriveDepositAddress,
  generateDemoWatchOnlyKeys,
  isValidDepositAddress,
  validateWatchOnlyKeys,
} from "./addresses";
import { DepositKeyError } from "./deposits/keys";
import type { DepositChain, WatchOnlyKeys } from "./family";
import { moneroBase58Decode, moneroPrimaryAddress } from "./monero/address";
import { p2wpkhScriptHex } from "./utxo/address";

// The BIP39 test mnemonic used by BIP84 and countless wallet test suites.
const ABANDON =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const root = HDKey.fromMasterSeed(mnemonicToSeedSync(ABANDON));
const accountXpub = (path: string): string => root.derive(path).publicExtendedKey;

/** BIP84 "Test vectors": account 0 of the mnemonic above, with SLIP-132 zpub version bytes. */
const BIP84_ZPUB =
  "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs";
const ZPUB_VERSIONS = { public: 0x04b24746, private: 0x04b2430c };

/**
 * Litecoin m/84'/2'/0' of the same mnemonic, as in the BIP84 reference test "changed for litecoin"
 * of alexdupre/litecoin-lib (src/test/scala/.../BIP84Spec.scala).
 */
const LTC_ACCOUNT_XPUB =
  "xpub6CjGURuDpczf6uNrCCwfhVizn5J3hsWcvZ2m6GAdmAjZnoWJPrx6TFPjGSftc2o5fvox6ubQjSXmjjaHZjwYMH7SGFpHHb9Jg24zBf66mbE";

const ethereumXpub = accountXpub("m/44'/60'/0'");
const tronXpub = accountXpub("m/44'/195'/0'");

/** Monero's own functional test wallet (tests/functional_tests/wallet_address.py, "velvet lymph …"). */
const MONERO_TEST_WALLET = {
  address: "42ey1afDFnn4886T7196doS9GPMzexD9gXpsZJDwVjeRVdFCSoHnv7KPbBeGpzJBzHRCAs9UxqeoyFQMYbqSWYTfJJQAWDm",
  viewKey: "49774391fa5e8d249fc2c5b45dadef13534bf2483dede880dac88f061e809100",
  spendKey: "148d78d2aba7dbca5cd8f6abcfb0b3c009ffbdbea1ff373d50ed94d78286640e",
  subaddress_0_1:
    "84QRUYawRNrU3NN1VpFRndSukeyEb3Xpv8qZjjsoJZnTYpDYceuUTpog13D7qPxpviS7J29bSgSkR11hFFoXWk2yNdsR9WF",
};

/**
 * The Monero General Fund: its main address and published view key (README of monero-project/monero),
 * and the donation subaddress shown on getmonero.org, which is subaddress (0, 70) of that wallet.
 */
const MONERO_GENERAL_FUND = {
  address: "44AFFq5kSiGBoZ4NMDwYtN18obc8AemS33DBLWs3H7otXft3XjrpDtQGv7SqSsaBYBb98uNbr2VBBEt7f2wfn3RVGQBEP3A",
  viewKey: "f359631075708155cc3d92a32b75a7d02a5dcf27756707b47a2b31b21c389501",
  subaddress_0_70:
    "888tNkZrPN6JsEgekjMnABU4TBzc2Dt29EPAvkRxbANsAnjyPbb3iQ1YBRk1UXcdRsiKc9dhwMVgN5S9cQUiyoogDavup3H",
};

/** The public spend key inside a standard Monero address (decoded with @scure/base, independently). */
const spendPublicKeyOf = (address: string): string => bytesToHex(base58xmr.decode(address).subarray(1, 33));

const keys: WatchOnlyKeys = {
  bitcoin: BIP84_ZPUB,
  litecoin: LTC_ACCOUNT_XPUB,
  ethereum: ethereumXpub,
  tron: tronXpub,
  monero: {
    viewKey: MONERO_TEST_WALLET.viewKey,
    spendPublicKey: spendPublicKeyOf(MONERO_TEST_WALLET.address),
  },
};

const CHAINS: DepositChain[] = ["bitcoin", "litecoin", "ethereum", "tron", "monero"];

/** Replaces one character with a different one of the same kind (keeps the alphabet valid). */
function corrupt(address: string, position: number): string {
  const char = address[position] as string;
  const alphabet = /[0-9]/.test(char)
    ? "23456789"
    : /[a-z]/.test(char)
      ? "acdefghjkmnpqrstuvwxyz"
      : "ABCDEFGHJKLMNPQRSTUVWXYZ";
  const replacement = [...alphabet].find((candidate) => candidate !== char) as string;
  return address.slice(0, position) + replacement + address.slice(position + 1);
}

describe("published test vectors", () => {
  it("bitcoin: BIP84 zpub and its receive addresses", () => {
    expect(
      HDKey.fromMasterSeed(mnemonicToSeedSync(ABANDON), ZPUB_VERSIONS).derive("m/84'/0'/0'")
        .publicExtendedKey,
    ).toBe(BIP84_ZPUB);
    expect(deriveDepositAddress("bitcoin", keys, 0)).toBe("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu");
    expect(deriveDepositAddress("bitcoin", keys, 1)).toBe("bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g");
    // The same account as a plain xpub gives the same addresses: version bytes do not matter.
    expect(deriveDepositAddress("bitcoin", { bitcoin: accountXpub("m/84'/0'/0'") }, 0)).toBe(
      "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu",
    );
  });

  it("litecoin: BIP84 for coin type 2", () => {
    expect(accountXpub("m/84'/2'/0'")).toBe(LTC_ACCOUNT_XPUB);
    expect(deriveDepositAddress("litecoin", keys, 0)).toBe("ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh");
    expect(deriveDepositAddress("litecoin", keys, 1)).toBe("ltc1qwlezpr3890hcp6vva9twqh27mr6edadreqvhnn");
    // Litecoin's own Ltub version bytes are read from the key and accepted as well.
    const ltub = HDKey.fromMasterSeed(mnemonicToSeedSync(ABANDON), {
      public: 0x019da462,
      private: 0x019d9cfe,
    }).derive("m/84'/2'/0'").publicExtendedKey;
    expect(ltub).toMatch(/^Ltub/);
    expect(deriveDepositAddress("litecoin", { litecoin: ltub }, 0)).toBe(
      "ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh",
    );
  });

  it("ethereum: m/44'/60'/0'/0/0 of the abandon mnemonic", () => {
    expect(deriveDepositAddress("ethereum", keys, 0)).toBe("0x9858EfFD232B4033E47d90003D41EC34EcaEda94");
  });

  it("tron: m/44'/195'/0'/0/0 of the abandon mnemonic (Ledger app-tron test case)", () => {
    expect(deriveDepositAddress("tron", keys, 0)).toBe("TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH");
  });

  it("monero: subaddress (0, 1) of Monero's functional test wallet", () => {
    // The test wallet's secret spend key really is behind the public spend key we read from its address.
    const spendScalar = bytesToNumberLE(hexToBytes(MONERO_TEST_WALLET.spendKey));
    expect(bytesToHex(ed25519.Point.BASE.multiply(spendScalar).toBytes())).toBe(keys.monero?.spendPublicKey);
    expect(deriveDepositAddress("monero", keys, 0)).toBe(MONERO_TEST_WALLET.subaddress_0_1);
  });

  it("monero: the General Fund donation subaddress (0, 70)", () => {
    const generalFund: WatchOnlyKeys = {
      monero: {
        viewKey: MONERO_GENERAL_FUND.viewKey,
        spendPublicKey: spendPublicKeyOf(MONERO_GENERAL_FUND.address),
      },
    };
    expect(deriveDepositAddress("monero", generalFund, 69)).toBe(MONERO_GENERAL_FUND.subaddress_0_70);
  });

  it("monero: the primary address rebuilt from the view key and public spend key", () => {
    expect(moneroPrimaryAddress(keys)).toBe(MONERO_TEST_WALLET.address);
    const generalFund: WatchOnlyKeys = {
      monero: {
        viewKey: MONERO_GENERAL_FUND.viewKey,
        spendPublicKey: spendPublicKeyOf(MONERO_GENERAL_FUND.address),
      },
    };
    expect(moneroPrimaryAddress(generalFund)).toBe(MONERO_GENERAL_FUND.address);
  });
});

describe("Monero base58", () => {
  it("round-trips every block length and keeps the fixed-width block vectors", () => {
    for (let length = 0; length <= 77; length++) {
      const data = randomBytes(length);
      expect(moneroBase58Decode(base58xmr.encode(data))).toEqual(data);
    }
    expect(base58xmr.encode(new Uint8Array(8))).toBe("11111111111");
    expect(base58xmr.encode(new Uint8Array(8).fill(0xff))).toBe("jpXCZedGfVQ");
    expect(moneroBase58Decode("jpXCZedGfVQ")).toEqual(new Uint8Array(8).fill(0xff));
  });

  it("refuses malformed text", () => {
    expect(moneroBase58Decode("0OIl")).toBeUndefined(); // not in the alphabet
    expect(moneroBase58Decode("1")).toBeUndefined(); // no block encodes to one character
    expect(moneroBase58Decode("zzzzzzzzzzz")).toBeUndefined(); // larger than 8 bytes
  });
});

describe("regtest address formats and output scripts", () => {
  // BIP84's first receive key (m/84'/0'/0'/0/0), published with its address bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu.
  const BIP84_PUBKEY_0 = "0330d54fd0dd420a6e5f8d3624f5f3482cae350f79d5f0753bf5beef9c2d91af3c";
  const script0 = `0014${bytesToHex(ripemd160(sha256(hexToBytes(BIP84_PUBKEY_0))))}`;

  it("the same key gives bc1 on mainnet and bcrt1 on regtest, paying the same script", () => {
    const main = deriveDepositAddress("bitcoin", keys, 0, "main");
    const regtest = deriveDepositAddress("bitcoin", keys, 0, "regtest");
    expect(main).toBe("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu");
    expect(regtest).toMatch(/^bcrt1q/);
    expect(p2wpkhScriptHex("bitcoin", main, "main")).toBe(script0);
    expect(p2wpkhScriptHex("bitcoin", regtest, "regtest")).toBe(script0);
    expect(isValidDepositAddress("bitcoin", regtest, "regtest")).toBe(true);
    expect(isValidDepositAddress("bitcoin", regtest)).toBe(false);
    expect(() => p2wpkhScriptHex("bitcoin", regtest, "main")).toThrow(RangeError);
  });

  it("litecoin: ltc1 and rltc1 from one key", () => {
    const main = deriveDepositAddress("litecoin", keys, 0);
    const regtest = deriveDepositAddress("litecoin", keys, 0, "regtest");
    expect(regtest).toMatch(/^rltc1q/);
    expect(p2wpkhScriptHex("litecoin", regtest, "regtest")).toBe(p2wpkhScriptHex("litecoin", main, "main"));
    expect(isValidDepositAddress("litecoin", main, "regtest")).toBe(false);
  });
});

describe("deriveDepositAddress", () => {
  it("gives a different, valid address per index on every chain", () => {
    for (const chain of CHAINS) {
      const addresses = [0, 1, 2, 1000, 2 ** 31 - 1].map((index) => deriveDepositAddress(chain, keys, index));
      expect(new Set(addresses).size).toBe(addresses.length);
      for (const address of addresses) expect(isValidDepositAddress(chain, address)).toBe(true);
    }
  });

  it("is deterministic", () => {
    for (const chain of CHAINS) {
      expect(deriveDepositAddress(chain, keys, 7)).toBe(deriveDepositAddress(chain, keys, 7));
    }
  });

  it("refuses a bad index", () => {
    for (const index of [-1, 1.5, 2 ** 31, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => deriveDepositAddress("bitcoin", keys, index)).toThrow(RangeError);
      expect(() => deriveDepositAddress("monero", keys, index)).toThrow(RangeError);
    }
  });

  it("throws DepositKeyError for a missing or unusable key", () => {
    expect(() => deriveDepositAddress("bitcoin", {}, 0)).toThrow(DepositKeyError);
    expect(() => deriveDepositAddress("monero", {}, 0)).toThrow(DepositKeyError);
    expect(() => deriveDepositAddress("tron", { tron: "xpub-nonsense" }, 0)).toThrow(/DEPOSIT_XPUB_TRX/);
    expect(() =>
      deriveDepositAddress("monero", { monero: { viewKey: "00", spendPublicKey: "11" } }, 0),
    ).toThrow(DepositKeyError);
  });

  it("refuses extended private keys", () => {
    const xprv = root.derive("m/84'/0'/0'").privateExtendedKey;
    expect(() => deriveDepositAddress("bitcoin", { bitcoin: xprv }, 0)).toThrow(/PRIVATE/);
  });
});

describe("isValidDepositAddress", () => {
  const derived = Object.fromEntries(
    CHAINS.map((chain) => [chain, deriveDepositAddress(chain, keys, 3)]),
  ) as Record<DepositChain, string>;

  it("rejects an address with one character changed", () => {
    for (const chain of CHAINS) {
      const address = derived[chain];
      for (const position of [address.length - 1, Math.floor(address.length / 2), 5]) {
        const corrupted = corrupt(address, position);
        expect(corrupted).not.toBe(address);
        expect(isValidDepositAddress(chain, corrupted), `${chain} ${corrupted}`).toBe(false);
      }
    }
  });

  it("rejects other chains' addresses", () => {
    for (const chain of CHAINS) {
      for (const other of CHAINS) {
        if (other !== chain) expect(isValidDepositAddress(chain, derived[other])).toBe(false);
      }
    }
  });

  it("rejects addresses of other kinds on the same chain", () => {
    // P2TR (witness v1), legacy P2PKH, a lower-case (un-checksummed) ETH address, a Monero main address.
    expect(
      isValidDepositAddress("bitcoin", "bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr"),
    ).toBe(false);
    expect(isValidDepositAddress("bitcoin", "1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA")).toBe(false);
    expect(isValidDepositAddress("ethereum", derived.ethereum.toLowerCase())).toBe(false);
    expect(isValidDepositAddress("monero", MONERO_TEST_WALLET.address)).toBe(false);
    expect(isValidDepositAddress("tron", "")).toBe(false);
    // A base58check payload of the right length but without Tron's 0x41 prefix.
    const notTron = createBase58check(sha256).encode(new Uint8Array(21).fill(0x42));
    expect(isValidDepositAddress("tron", notTron)).toBe(false);
  });

  it("accepts the published addresses", () => {
    expect(isValidDepositAddress("monero", MONERO_GENERAL_FUND.subaddress_0_70)).toBe(true);
    expect(isValidDepositAddress("tron", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t")).toBe(true);
  });
});

describe("validateWatchOnlyKeys", () => {
  it("accepts usable keys and ignores unconfigured ones", () => {
    expect(validateWatchOnlyKeys(keys)).toEqual([]);
    expect(validateWatchOnlyKeys({})).toEqual([]);
  });

  it("names the setting and refuses extended private keys explicitly", () => {
    const xprv = root.derive("m/44'/60'/0'").privateExtendedKey;
    const zprv = HDKey.fromMasterSeed(mnemonicToSeedSync(ABANDON), ZPUB_VERSIONS).derive(
      "m/84'/0'/0'",
    ).privateExtendedKey;
    const problems = validateWatchOnlyKeys({ ethereum: xprv, bitcoin: zprv });
    expect(problems).toHaveLength(2);
    expect(problems.find((problem) => problem.startsWith("DEPOSIT_XPUB_ETH:"))).toMatch(/PRIVATE/);
    expect(problems.find((problem) => problem.startsWith("DEPOSIT_XPUB_BTC:"))).toMatch(/PRIVATE/);
  });

  it("reports unparseable keys", () => {
    const problems = validateWatchOnlyKeys({
      bitcoin: "not a key",
      litecoin: `${LTC_ACCOUNT_XPUB.slice(0, -1)}F`, // checksum broken
      tron: "",
      monero: { viewKey: "zz", spendPublicKey: "" },
    });
    expect(problems).toEqual([
      expect.stringMatching(/^DEPOSIT_XPUB_BTC: not an extended public key/),
      expect.stringMatching(/^DEPOSIT_XPUB_LTC: not an extended public key/),
      expect.stringMatching(/^DEPOSIT_XPUB_TRX: missing/),
      expect.stringMatching(/^DEPOSIT_XMR_VIEW_KEY: expected 64 hex/),
      expect.stringMatching(/^DEPOSIT_XMR_SPEND_PUBLIC_KEY: missing/),
    ]);
  });

  it("refuses Monero keys that are not a scalar and a point", () => {
    const order = ed25519.Point.Fn.ORDER;
    const unreduced = bytesToHex(
      Uint8Array.from({ length: 32 }, (_, i) => Number((order >> BigInt(8 * i)) & 0xffn)),
    );
    const problems = validateWatchOnlyKeys({
      monero: {
        viewKey: unreduced,
        spendPublicKey: "0100000000000000000000000000000000000000000000000000000000000000",
      },
    });
    expect(problems).toEqual([
      expect.stringMatching(/^DEPOSIT_XMR_VIEW_KEY: not a reduced/),
      expect.stringMatching(/^DEPOSIT_XMR_SPEND_PUBLIC_KEY: not a usable public key/), // the identity point
    ]);
  });
});

describe("generateDemoWatchOnlyKeys", () => {
  it("returns only public keys (plus the Monero view key) that derive valid addresses", () => {
    const demo = generateDemoWatchOnlyKeys();
    expect(validateWatchOnlyKeys(demo)).toEqual([]);
    for (const chain of ["bitcoin", "litecoin", "ethereum", "tron"] as const) {
      expect(demo[chain]).toMatch(/^xpub/);
      const key = HDKey.fromExtendedKey(demo[chain]);
      expect(key.privateKey).toBeNull();
      expect(key.depth).toBe(3);
    }
    expect(demo.monero.viewKey).toMatch(/^[0-9a-f]{64}$/);
    expect(demo.monero.spendPublicKey).toMatch(/^[0-9a-f]{64}$/);
    for (const chain of CHAINS) {
      expect(isValidDepositAddress(chain, deriveDepositAddress(chain, demo, 0))).toBe(true);
    }
  });

  it("is random", () => {
    const first = generateDemoWatchOnlyKeys();
    const second = generateDemoWatchOnlyKeys();
    expect(first.bitcoin).not.toBe(second.bitcoin);
    expect(first.monero.viewKey).not.toBe(second.monero.viewKey);
  });
});
