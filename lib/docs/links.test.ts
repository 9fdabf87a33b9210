import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { headingAnchors, linkTargets, repositoryPages } from "./markdown-pages";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** Links that leave the repository: other sites, mail, and the running app's own paths (/docs/api, /status). */
const outside = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("/");

/** Every relative link of README.md and docs/ that does not lead to a file, or to a heading of that file. */
function brokenLinks(root: string): string[] {
  const pages = repositoryPages(root);
  const broken: string[] = [];
  for (const page of pages) {
    for (const target of linkTargets(page.text)) {
      if (outside(target)) continue;
      const [file = "", anchor] = target.split("#");
      const resolved = file === "" ? page.file : path.normalize(path.join(path.dirname(page.file), file));
      if (!existsSync(path.join(root, resolved))) {
        broken.push(`${page.file}: ${target} (no file ${resolved})`);
        continue;
      }
      if (anchor === undefined) continue;
      const targetPage = pages.find((candidate) => candidate.file === resolved);
      if (!targetPage || !headingAnchors(targetPage.text).has(decodeURIComponent(anchor))) {
        broken.push(`${page.file}: ${target} (no heading #${anchor} in ${resolved})`);
      }
    }
  }
  return broken;
}

describe("the links of README.md and docs/", () => {
  it("lead to files that exist and headings those files have", () => {
    expect(brokenLinks(ROOT)).toEqual([]);
  });

  it("names a link to a missing file or heading, and leaves other sites and the app's paths alone", () => {
    const root = mkdtempSync(path.join(tmpdir(), "vps-links-"));
    mkdirSync(path.join(root, "docs"));
    writeFileSync(
      path.join(root, "README.md"),
      "# Top\n[a](docs/a.md#there) [b](docs/b.md) [c](docs/a.md#gone) [d](#top) [e](https://x.example/y) [f](/status)\n",
    );
    writeFileSync(path.join(root, "docs/a.md"), "# A\n## There\n[back](../README.md#nowhere)\n");
    expect(brokenLinks(root)).toEqual([
      "README.md: docs/b.md (no file docs/b.md)",
      "README.md: docs/a.md#gone (no heading #gone in docs/a.md)",
      "docs/a.md: ../README.md#nowhere (no heading #nowhere in README.md)",
    ]);
  });

  it("reads links and anchors as GitHub does, outside code", () => {
    const text = [
      "# A `b` c",
      "## Hosts (`HYPERVISORS`)",
      "## Hosts (`HYPERVISORS`)",
      "see [x](other.md#y) and `[not](a-link)`",
      "```",
      "[not](either)",
      "# not a heading",
      "```",
    ].join("\n");
    expect([...headingAnchors(text)]).toEqual(["a-b-c", "hosts-hypervisors", "hosts-hypervisors-1"]);
    expect(linkTargets(text)).toEqual(["other.md#y"]);
  });
});
