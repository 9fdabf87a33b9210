import { markdownPages, markdownResponse } from "@/lib/docs/markdown";

/** The Markdown twin of /docs/api: the overview, every operation by tag, the key scopes and the guide. */
export function GET(): Response {
  return markdownResponse(markdownPages().overview);
}
