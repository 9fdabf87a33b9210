import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import GithubSlugger from "github-slugger";

/**
 * The repository's own Markdown (README.md and docs/*.md) as the link and reference checks read it: prose
 * lines outside fenced code, with inline code spans kept apart, and each heading's anchor as GitHub makes it.
 */
export type MarkdownPage = { file: string; text: string };

export function repositoryPages(root: string): MarkdownPage[] {
  const docs = readdirSync(path.join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`);
  return ["README.md", ...docs].map((file) => ({ file, text: readFileSync(path.join(root, file), "utf8") }));
}

/** The lines outside fenced code blocks. */
export function proseLines(text: string): string[] {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of text.split("\n")) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (!fence || marker.startsWith(fence))) {
      fence = fence ? undefined : marker;
      continue;
    }
    if (!fence) lines.push(line);
  }
  return lines;
}

/** Every heading's anchor, in order, with GitHub's numbering of repeated ones. */
export function headingAnchors(text: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  for (const line of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading !== undefined) anchors.add(slugger.slug(heading.replace(/`/g, "")));
  }
  return anchors;
}

/** The targets of the page's links ([text](target)), outside code and HTML comments. */
export function linkTargets(text: string): string[] {
  const targets: string[] = [];
  for (const line of proseLines(text.replace(/<!--[\s\S]*?-->/g, ""))) {
    const withoutCode = line.replace(/`[^`]*`/g, "");
    for (const match of withoutCode.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      targets.push(match[1] ?? "");
    }
  }
  return targets;
}

/** The inline code spans of the page's prose, and every line of its fenced code. */
export function codeSpans(text: string): string[] {
  const prose = new Set(proseLines(text));
  const spans: string[] = [];
  for (const line of text.split("\n")) {
    if (!prose.has(line)) spans.push(line);
  }
  for (const line of proseLines(text)) {
    for (const match of line.matchAll(/`([^`]+)`/g)) spans.push(match[1] ?? "");
  }
  return spans;
}
