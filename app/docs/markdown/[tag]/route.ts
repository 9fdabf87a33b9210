import { markdownPages, markdownResponse } from "@/lib/docs/markdown";

/** The Markdown twin of /docs/api/<tag>, served at /docs/api/<tag>.md (next.config.ts rewrites it here). */
export async function GET(_request: Request, { params }: { params: Promise<{ tag: string }> }) {
  const { tag } = await params;
  const text = markdownPages().tags.get(tag);
  if (text === undefined) {
    return new Response(`No reference page ${tag}.md: see /docs/api.md.\n`, {
      status: 404,
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
  }
  return markdownResponse(text);
}
