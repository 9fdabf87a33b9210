import { describe, expect, it } from "vitest";
import { OPERATIONS } from "@/lib/api/openapi/operations";
import { API_KEY_SCOPES } from "@/lib/db/types";
import { markdownPages } from "./markdown";
import { apiReference } from "./reference";

const { llms, overview, tags } = markdownPages();

describe("the reference in Markdown", () => {
  it("has every operation on its tag's page, in full, and in the overview", () => {
    const { operations } = apiReference();
    expect(operations.length).toBe(OPERATIONS.size);
    for (const { method, path, operation } of operations) {
      const slug = (operation.tags?.[0] ?? "").toLowerCase().replace(/[^a-z0-9]+/g, "-");
      const page = tags.get(slug) ?? "";
      const heading = `## ${method.toUpperCase()} /api/v1${path}`;
      expect(page, `${operation.operationId} on ${slug}.md`).toContain(heading);
      expect(page).toContain(`Operation id \`${operation.operationId}\``);
      expect(overview, `${operation.operationId} in api.md`).toContain(`(\`${operation.operationId}\`)`);
    }
  });

  it("gives a body's fields and an answer's fields as tables", () => {
    const servers = tags.get("servers") ?? "";
    expect(servers).toContain("### Request body");
    expect(servers).toMatch(/\| `plan` \| /);
    expect(servers).toMatch(/- \*\*402\*\*: .*insufficient_balance/);
  });

  it("carries the guide and every scope in the overview", () => {
    expect(overview).toContain("- **Errors**: always `{error, message}`.");
    expect(overview).not.toContain("<!--");
    for (const scope of API_KEY_SCOPES) expect(overview).toContain(`| \`${scope}\` |`);
  });

  it("links every page from llms.txt, which starts as llmstxt.org lays it out", () => {
    expect(llms).toMatch(/^# .+\n\n> .+/);
    expect(llms).toContain("(/docs/api.md)");
    for (const slug of tags.keys()) expect(llms).toContain(`(/docs/api/${slug}.md)`);
    expect(llms).toContain("/mcp");
  });
});
