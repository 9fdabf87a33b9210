/** The first line of an error's message, for one-line log entries (stack-like detail stays out of the log). */
export function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n")[0] ?? "";
}
