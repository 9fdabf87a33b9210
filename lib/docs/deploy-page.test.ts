import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SETTINGS } from "@/lib/boot/settings";
import { SCRIPT_SETTINGS } from "@/lib/boot/settings-words";
import { codeSpans } from "./markdown-pages";

const ROOT = path.resolve(import.meta.dirname, "../..");
const PAGE = "docs/deploy.md";

/** Repository paths the page names (`deploy/...`, `scripts/...`, ...), without placeholders or globs. */
function namedFiles(text: string): string[] {
  const files = new Set<string>();
  for (const span of codeSpans(text)) {
    for (const match of span.matchAll(
      /(?:^|[\s"'=(])((?:deploy|scripts|lib|docs|app|components|e2e)\/[\w./@-]*)/g,
    )) {
      const file = (match[1] ?? "").replace(/[.,:;]+$/, "");
      if (!file.includes("<")) files.add(file);
    }
  }
  return [...files];
}

/** The npm scripts the page runs (`npm run NAME`). */
function namedScripts(text: string): string[] {
  return [
    ...new Set(
      codeSpans(text).flatMap((span) => [...span.matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1] ?? "")),
    ),
  ];
}

/** Upper-case names with an underscore in the page's code (`SESSION_SECRET`, `DEPOSIT_XPUB_*` as a prefix). */
function namedVariables(text: string): string[] {
  const names = new Set<string>();
  for (const span of codeSpans(text)) {
    for (const match of span.matchAll(/\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(_\*)?/g)) {
      names.add(`${match[1]}${match[2] ? "_*" : ""}`);
    }
  }
  return [...names];
}

/** What a variable may be: a setting the app validates, a script's own, or one the deploy kit or a script reads. */
function knownVariables(): { settings: Set<string>; readByKit: (name: string) => boolean } {
  const settings = new Set([
    ...Object.values(SETTINGS).flatMap((slice) => slice.names),
    ...SCRIPT_SETTINGS.flatMap((entry) => entry.names),
  ]);
  const kit = ["deploy", "scripts"].flatMap((dir) => filesUnder(path.join(ROOT, dir)));
  const sources = kit.map((file) => readFileSync(file, "utf8"));
  return {
    settings,
    readByKit: (name) => sources.some((source) => new RegExp(`\\b${name}\\b`).test(source)),
  };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : [path.join(dir, entry.name)],
  );
}

describe("the deploy page", () => {
  const text = readFileSync(path.join(ROOT, PAGE), "utf8");

  it("names files and scripts that exist", () => {
    const files = namedFiles(text);
    expect(files).toEqual(expect.arrayContaining(["deploy/postgresql/roles.sql", "deploy/nginx/vps.conf"]));
    expect(files.filter((file) => !existsSync(path.join(ROOT, file)))).toEqual([]);
    const scripts = Object.keys(JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts);
    const named = namedScripts(text);
    expect(named).toEqual(expect.arrayContaining(["guest:build", "operator:add"]));
    expect(named.filter((name) => !scripts.includes(name))).toEqual([]);
  });

  it("names settings that are real: validated by the app, or read by the deploy kit or a script", () => {
    const { settings, readByKit } = knownVariables();
    const named = namedVariables(text);
    expect(named).toEqual(expect.arrayContaining(["SESSION_SECRET", "DEPOSIT_XPUB_BTC"]));
    const unknown = named.filter((name) =>
      name.endsWith("_*")
        ? ![...settings].some((setting) => setting.startsWith(name.slice(0, -1)))
        : !settings.has(name) && !readByKit(name),
    );
    expect(unknown).toEqual([]);
  });

  it("would notice a missing file, script or setting", () => {
    const made = "`deploy/nginx/nope.conf`, `npm run no:such`, `SESSION_SECRETS`, `NOPE_XYZ_*`";
    expect(namedFiles(made)).toEqual(["deploy/nginx/nope.conf"]);
    expect(namedScripts(made)).toEqual(["no:such"]);
    expect(namedVariables(made)).toEqual(["SESSION_SECRETS", "NOPE_XYZ_*"]);
    const { settings, readByKit } = knownVariables();
    expect(settings.has("SESSION_SECRETS") || readByKit("SESSION_SECRETS")).toBe(false);
  });
});
