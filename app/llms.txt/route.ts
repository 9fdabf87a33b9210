import { markdownPages, markdownResponse } from "@/lib/docs/markdown";

/** What the service is and where its docs are, for language models and agents (llmstxt.org's layout). */
export function GET(): Response {
  return markdownResponse(markdownPages().llms, "text/plain");
}
