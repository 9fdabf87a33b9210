import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The layering of lib/, held by a test: a lower layer never imports a higher one. Every non-test source file
 * under lib/ is read and its imports resolved (`@/…` and relative ones); a rule lists, for the files under one
 * folder, the folders they may not import from. Type-only imports count too: they tie the lower layer to
 * the higher one's words just the same.
 */
const ROOT = path.resolve(import.meta.dirname, "..");

/** Where `lib/<domain>` sits: the layers above the database, configuration and helpers. */
const DOMAINS = [
  "lib/accounts",
  "lib/api",
  "lib/background",
  "lib/boot",
  "lib/catalog",
  "lib/dashboard",
  "lib/demo-chain",
  "lib/health",
  "lib/http",
  "lib/idempotency",
  "lib/mcp",
  "lib/ledger",
  "lib/notifications",
  "lib/operator",
  "lib/purchases",
  "lib/rails",
  "lib/rate-limit",
  "lib/servers",
  "lib/status",
  "lib/testing",
  "lib/topups",
];

type Rule = { files: string; mayNotImport: string[] };

const RULES: Rule[] = [
  // The ground floor: helpers, configuration and the database name no domain.
  { files: "lib/util", mayNotImport: ["lib/config", "lib/db", ...DOMAINS] },
  { files: "lib/config", mayNotImport: ["lib/db", ...DOMAINS] },
  { files: "lib/db", mayNotImport: DOMAINS },
  // The rails sit below top-ups and report upward only through what they return.
  {
    files: "lib/rails",
    mayNotImport: [
      "lib/topups",
      "lib/servers",
      "lib/accounts",
      "lib/background",
      "lib/boot",
      "lib/dashboard",
      "lib/api",
      "lib/health",
      "lib/operator",
      "lib/status",
    ],
  },
  // The watcher machinery every family builds on knows no family and nothing that lists them.
  {
    files: "lib/rails/deposits",
    mayNotImport: [
      "lib/rails/utxo",
      "lib/rails/evm",
      "lib/rails/tron",
      "lib/rails/monero",
      "lib/rails/x402",
      "lib/rails/families.ts",
      "lib/rails/setup.ts",
      "lib/rails/addresses.ts",
      "lib/rails/payment-uri.ts",
    ],
  },
  // A family folder knows its own code and the shared machinery, not another family (the EVM block walk is
  // the one piece TRON shares, being an EVM-style JSON-RPC).
  {
    files: "lib/rails/utxo",
    mayNotImport: ["lib/rails/evm", "lib/rails/tron", "lib/rails/monero", "lib/rails/x402"],
  },
  {
    files: "lib/rails/evm",
    mayNotImport: ["lib/rails/utxo", "lib/rails/tron", "lib/rails/monero", "lib/rails/x402"],
  },
  {
    files: "lib/rails/tron",
    mayNotImport: ["lib/rails/utxo", "lib/rails/monero", "lib/rails/x402"],
  },
  {
    files: "lib/rails/monero",
    mayNotImport: ["lib/rails/utxo", "lib/rails/evm", "lib/rails/tron", "lib/rails/x402"],
  },
  {
    files: "lib/rails/x402",
    mayNotImport: ["lib/rails/utxo", "lib/rails/evm", "lib/rails/tron", "lib/rails/monero"],
  },
  // Top-ups and servers are domains: the background runs them, the dashboard shows them, the operator's
  // console acts on them; none of these is theirs.
  {
    files: "lib/topups",
    mayNotImport: [
      "lib/dashboard",
      "lib/background",
      "lib/boot",
      "lib/servers",
      "lib/operator",
      "lib/status",
    ],
  },
  {
    files: "lib/servers",
    mayNotImport: ["lib/dashboard", "lib/background", "lib/boot", "lib/topups", "lib/operator", "lib/status"],
  },
  {
    files: "lib/accounts",
    mayNotImport: [
      "lib/dashboard",
      "lib/background",
      "lib/boot",
      "lib/servers",
      "lib/operator",
      "lib/status",
    ],
  },
  { files: "lib/ledger", mayNotImport: DOMAINS.filter((domain) => domain !== "lib/ledger") },
  // Notifications record the facts the domains and the rails commit, in their transactions: they sit below
  // every one of them and read the rows themselves, never a domain's code.
  {
    files: "lib/notifications",
    mayNotImport: [
      "lib/status",
      "lib/servers",
      "lib/topups",
      "lib/accounts",
      "lib/operator",
      "lib/dashboard",
      "lib/background",
      "lib/boot",
      "lib/rails/deposits",
      "lib/rails/setup.ts",
      "lib/rails/families.ts",
    ],
  },
  // Server time bought with an x402 payment joins the two domains it spans, top-ups and servers; the
  // background settles what it holds, the routes call it.
  {
    files: "lib/purchases",
    mayNotImport: ["lib/dashboard", "lib/background", "lib/boot", "lib/operator", "lib/status"],
  },
  // The operator's console stands over the domains it acts on; only the background and the boot are above it.
  { files: "lib/operator", mayNotImport: ["lib/dashboard", "lib/background", "lib/boot"] },
  // The status page reads what the domains record; nothing records through it, and nothing below reads it.
  { files: "lib/status", mayNotImport: ["lib/dashboard", "lib/background", "lib/boot", "lib/operator"] },
  { files: "lib/health", mayNotImport: ["lib/status"] },
];

/** Browser code: what it imports, however indirectly, must run in a browser. */
const BROWSER = ["lib/dashboard/queries", "lib/dashboard/wallet"];

const SOURCE = /\.(ts|tsx)$/;
const isTest = (file: string) => /\.test\.tsx?$/.test(file);

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir)).flatMap((name) => {
    const relative = path.join(dir, name);
    if (statSync(path.join(ROOT, relative)).isDirectory()) return sourceFiles(relative);
    return SOURCE.test(name) && !isTest(name) && !name.endsWith(".d.ts") ? [relative] : [];
  });
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|(?:^|\n)\s*import\s*["']([^"']+)["']/g;

/** The specifiers a file imports (static, re-exports, side-effect and dynamic imports). */
function importsOf(text: string): string[] {
  return [...text.matchAll(IMPORT)].map((match) => match[1] ?? match[2] ?? match[3] ?? "");
}

/** A specifier as a repository path (`lib/…`), or undefined for a package. */
function resolve(from: string, specifier: string): string | undefined {
  let target: string;
  if (specifier.startsWith("@/")) target = specifier.slice(2);
  else if (specifier.startsWith(".")) target = path.join(path.dirname(from), specifier);
  else return undefined;
  for (const candidate of [target, `${target}.ts`, `${target}.tsx`, path.join(target, "index.ts")]) {
    const full = path.join(ROOT, candidate);
    if (existsSync(full) && statSync(full).isFile()) return candidate;
  }
  return target;
}

const within = (file: string, folder: string) => file === folder || file.startsWith(`${folder}/`);

/** Every import that breaks a rule, as `file -> imported`. */
function violations(files: Map<string, string>, rules: Rule[]): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    for (const specifier of importsOf(text)) {
      const target = resolve(file, specifier);
      if (!target) continue;
      for (const rule of rules) {
        if (!within(file, rule.files)) continue;
        const banned = rule.mayNotImport.find((folder) => within(target, folder));
        // A folder's own files may use each other (a rule on lib/rails does not ban lib/rails/…).
        if (banned && !within(file, banned))
          found.push(`${file} -> ${target} (${rule.files} may not import ${banned})`);
      }
    }
  }
  return found;
}

/** Browser files that reach a module marked `server-only`, with the chain of imports that leads there. */
function serverOnlyReach(files: Map<string, string>, roots: string[]): string[] {
  const serverOnly = (text: string) => importsOf(text).includes("server-only");
  const found: string[] = [];
  for (const start of [...files.keys()].filter((file) => roots.some((root) => within(file, root)))) {
    const seen = new Set<string>([start]);
    const queue: string[][] = [[start]];
    while (queue.length > 0) {
      const chain = queue.shift() ?? [];
      const file = chain[chain.length - 1] ?? "";
      const text =
        files.get(file) ??
        (existsSync(path.join(ROOT, file)) ? readFileSync(path.join(ROOT, file), "utf8") : "");
      if (serverOnly(text)) {
        found.push(chain.join(" -> "));
        continue;
      }
      for (const specifier of importsOf(text)) {
        // `import type` is erased: it never reaches the bundle.
        const target = resolve(file, specifier);
        if (!target || seen.has(target) || isTypeOnly(text, specifier)) continue;
        seen.add(target);
        queue.push([...chain, target]);
      }
    }
  }
  return found;
}

function isTypeOnly(text: string, specifier: string): boolean {
  const escaped = specifier.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  const statements = text.match(
    new RegExp(`(?:^|\\n)\\s*(?:import|export)\\s[^;]*?from\\s*["']${escaped}["']`, "g"),
  );
  return (statements ?? []).every((statement) => /^\s*(?:import|export)\s+type\s/.test(statement.trim()));
}

const libFiles = () =>
  new Map(sourceFiles("lib").map((file) => [file, readFileSync(path.join(ROOT, file), "utf8")]));

describe("the layering of lib/", () => {
  it("no lower layer imports a higher one", () => {
    expect(violations(libFiles(), RULES)).toEqual([]);
  });

  it("browser code reaches no server-only module, however indirectly", () => {
    expect(serverOnlyReach(libFiles(), BROWSER)).toEqual([]);
  });

  it("the checks see an upward import and a server-only one when there is one", () => {
    const files = new Map([
      ["lib/db/example.ts", 'import type { Topup } from "@/lib/api/schemas/topups";\n'],
      ["lib/rails/utxo/example.ts", 'import { settleTopups } from "../../topups/settlement";\n'],
      ["lib/rails/example.ts", 'const later = () => import("@/lib/servers/jobs");\n'],
      ["lib/dashboard/queries/example.ts", 'import { db } from "@/lib/db/client";\n'],
    ]);
    expect(violations(files, RULES)).toEqual([
      "lib/db/example.ts -> lib/api/schemas/topups.ts (lib/db may not import lib/api)",
      "lib/rails/utxo/example.ts -> lib/topups/settlement.ts (lib/rails may not import lib/topups)",
      "lib/rails/example.ts -> lib/servers/jobs.ts (lib/rails may not import lib/servers)",
    ]);
    expect(serverOnlyReach(files, ["lib/dashboard/queries"])).toEqual([
      "lib/dashboard/queries/example.ts -> lib/db/client.ts",
    ]);
  });
});
