import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { API_KEY_SCOPES } from "@/lib/db/types";
import { apiGuide, GUIDE_FILE, inlineParts, parseGuide } from "./guide";

describe("the API guide", () => {
  it("reads items on two levels, joining their wrapped lines", () => {
    const items = parseGuide(
      ["<!-- a note -->", "- **One**: first", "  line", "  - inner", "    wrapped", "- two", ""].join("\n"),
    );
    expect(items).toEqual([
      { text: "**One**: first line", children: [{ text: "inner wrapped", children: [] }] },
      { text: "two", children: [] },
    ]);
  });

  it("refuses text outside an item rather than dropping it", () => {
    expect(() => parseGuide("a stray paragraph")).toThrow(/outside an item/);
  });

  it("splits inline code, bold and links, leaving the rest as text", () => {
    expect(inlineParts("a `b` **c** [d](/e) f")).toEqual([
      { kind: "text", text: "a " },
      { kind: "code", text: "b" },
      { kind: "text", text: " " },
      { kind: "bold", text: "c" },
      { kind: "text", text: " " },
      { kind: "link", text: "d", href: "/e" },
      { kind: "text", text: " f" },
    ]);
  });

  it("as shipped: every line belongs to an item, and the topics the README points to are there", () => {
    const items = apiGuide();
    const topics = items.map((item) => /^\*\*([^*]+)\*\*/.exec(item.text)?.[1]);
    expect(topics).toEqual(expect.arrayContaining(["Errors", "Rate limits", "Keys", "Top-ups"]));
    const words = (list: typeof items): number =>
      list.reduce(
        (sum, item) =>
          sum + item.text.split(/\s+/).filter((word) => word !== "").length + words(item.children),
        0,
      );
    // Nothing of the file is lost on the way: the items hold every word outside the comment.
    const source = readFileSync(GUIDE_FILE, "utf8")
      .replace(/<!--[\s\S]*?-->/g, "")
      .replace(/^ *- /gm, "");
    const sourceWords = source.split(/\s+/).filter((word) => word !== "").length;
    expect(words(items)).toBe(sourceWords);
  });

  it("names every key scope and every refusal of a key, under Keys", () => {
    const keys = apiGuide().find((item) => item.text.startsWith("**Keys**"));
    const text = JSON.stringify(keys);
    const missing = [
      ...API_KEY_SCOPES,
      "missing_scope",
      "address_not_allowed",
      "key_expired",
      "spend_cap_exceeded",
      "beyond_key_rights",
    ].filter((name) => !new RegExp(`\`(\\d{3} )?${name}\``).test(text));
    expect(missing).toEqual([]);
  });
});
