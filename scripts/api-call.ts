import http from "node:http";

/** One API request from a benchmark: JSON in and out, from the client address given, failing on an error answer. */
export async function apiCall(
  base: string,
  route: string,
  options: { method?: string; key?: string; body?: unknown; ip: string },
): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = { "x-forwarded-for": options.ip };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${base}/api/v1${route}`, {
    method: options.method ?? "GET",
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const body = (await response.json()) as Record<string, unknown>;
  if (!response.ok) {
    throw new Error(`${options.method ?? "GET"} ${route}: ${response.status} ${JSON.stringify(body)}`);
  }
  return body;
}

/** A webhook receiver on loopback that answers every delivery 204: where a benchmark's notifications go. */
export async function startWebhookSink(): Promise<{ url: string; close: () => void }> {
  const server = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => response.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => server.close() };
}
