import { readFileSync } from "node:fs";
import path from "node:path";

/**
 * The API guide (docs/api-guide.md): the conventions and behaviour the OpenAPI document's operations do not
 * spell out, shown at /docs/api. Its Markdown is a small subset, parsed here rather than by a library: items
 * ("- ") on two levels, their lines wrapped with indentation, and inline `code`, **bold** and [links](...).
 */
export type GuideItem = { text: string; children: GuideItem[] };

export const GUIDE_FILE = path.join(process.cwd(), "docs/api-guide.md");

export function parseGuide(markdown: string): GuideItem[] {
  const items: GuideItem[] = [];
  let current: GuideItem | undefined;
  for (const line of markdown.replace(/<!--[\s\S]*?-->/g, "").split("\n")) {
    if (line.trim() === "") continue;
    const item = /^( *)- (.*)$/.exec(line);
    if (item) {
      const entry = { text: item[2] ?? "", children: [] };
      const parent = items.at(-1);
      if ((item[1] ?? "").length >= 2 && parent) parent.children.push(entry);
      else items.push(entry);
      current = entry;
    } else if (current) {
      current.text += ` ${line.trim()}`;
    } else {
      throw new Error(`api guide: text outside an item: ${line.slice(0, 60)}`);
    }
  }
  return items;
}

/** The guide as shipped, read once per process. */
let cached: GuideItem[] | undefined;
export function apiGuide(): GuideItem[] {
  cached ??= parseGuide(readFileSync(GUIDE_FILE, "utf8"));
  return cached;
}

/** Inline Markdown split into parts to render: plain text, `code`, **bold** and [text](href). */
export type InlinePart =
  | { kind: "text" | "code" | "bold"; text: string }
  | { kind: "link"; text: string; href: string };

export function inlineParts(text: string): InlinePart[] {
  return text
    .split(/(`[^`]+`|\*\*[^*]+\*\*|\[[^\]]+\]\([^)\s]+\))/)
    .filter((part) => part !== "")
    .map((part): InlinePart => {
      if (part.startsWith("`") && part.endsWith("`")) return { kind: "code", text: part.slice(1, -1) };
      if (part.startsWith("**") && part.endsWith("**")) return { kind: "bold", text: part.slice(2, -2) };
      const link = /^\[([^\]]+)\]\(([^)\s]+)\)$/.exec(part);
      if (link) return { kind: "link", text: link[1] ?? "", href: link[2] ?? "" };
      return { kind: "text", text: part };
    });
}
