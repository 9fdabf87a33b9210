import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SETTINGS } from "./settings";
import {
  CONFIGURATION_PAGE,
  formatDefault,
  readConfigurationPage,
  settingsReference,
  withReference,
} from "./settings-reference";
import { SCRIPT_SETTINGS, SETTING_WORDS, SLICE_TITLES } from "./settings-words";

const ROOT = path.resolve(import.meta.dirname, "../..");

describe("the configuration reference", () => {
  it(`${CONFIGURATION_PAGE} is what npm run docs:config makes from the schemas today`, () => {
    const page = readConfigurationPage(ROOT);
    expect(page, `${CONFIGURATION_PAGE} is stale: run npm run docs:config`).toBe(
      withReference(page, settingsReference()),
    );
  });

  it("describes every variable a slice reads, and only those (besides the scripts' own)", () => {
    const read = new Set(Object.values(SETTINGS).flatMap((slice) => slice.names));
    const described = SETTING_WORDS.flatMap((entry) => entry.names);
    expect([...read].filter((name) => !described.includes(name))).toEqual([]);
    expect(described.filter((name) => !read.has(name))).toEqual([]);
    expect(new Set(described).size).toBe(described.length);
  });

  it("names the files that hold each slice and read each script's variable", () => {
    for (const slice of Object.values(SETTINGS)) {
      const file = SLICE_TITLES[slice.name]?.file;
      expect(file, `${slice.name} has a title and file`).toBeDefined();
      const source = readFileSync(path.join(ROOT, file ?? ""), "utf8");
      expect(source, slice.name).toContain(`name: "${slice.name}"`);
    }
    for (const entry of SCRIPT_SETTINGS) {
      const source = readFileSync(path.join(ROOT, entry.readBy), "utf8");
      for (const name of entry.names) expect(source, name).toContain(name);
    }
  });

  it("writes defaults as the variables are written", () => {
    expect(formatDefault({ limit: 100, windowSeconds: 604_800 })).toBe("100/168h");
    expect(formatDefault({ limit: 5, windowSeconds: 900 })).toBe("5/15m");
    expect(formatDefault({ limit: 3, windowSeconds: 45 })).toBe("3/45s");
    expect(formatDefault([72, 24])).toBe("72,24");
    expect(formatDefault([])).toBeUndefined();
    expect(formatDefault({})).toBeUndefined();
    expect(formatDefault(undefined)).toBeUndefined();
    expect(formatDefault(0)).toBe("0");
  });

  it("replaces only what lies between the markers, and refuses a page without them", () => {
    const page = readConfigurationPage(ROOT);
    const replaced = withReference(page, "NEW");
    expect(replaced).toContain("NEW");
    expect(replaced.split("## Every setting")[0]).toBe(page.split("## Every setting")[0]);
    expect(() => withReference("no markers", "x")).toThrow(/markers/);
  });
});
