/**
 * The PowerDNS Authoritative Server's HTTP API (`/api/v1/servers/<id>/zones`), as far as reverse DNS needs it:
 * make sure the reverse zone exists, and replace or delete one PTR record set. Every call is bounded by a
 * timeout; failures carry the server's own words.
 */

export type PowerDnsTarget = { url: string; apiKey: string; serverId: string; timeoutMs: number };

export class PowerDnsError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "PowerDnsError";
  }
}

/** A name as PowerDNS writes it: absolute, with its final dot. */
export const absolute = (name: string) => (name.endsWith(".") ? name : `${name}.`);

async function call(target: PowerDnsTarget, method: string, path: string, body?: unknown): Promise<Response> {
  const url = `${target.url}/api/v1/servers/${encodeURIComponent(target.serverId)}${path}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: { "X-API-Key": target.apiKey, "Content-Type": "application/json", Accept: "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(target.timeoutMs),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    const reason =
      (error as Error).name === "TimeoutError" ? `no answer within ${target.timeoutMs} ms` : cause;
    throw new PowerDnsError(`PowerDNS unreachable (${reason ?? (error as Error).message})`);
  }
  return response;
}

async function failure(response: Response, doing: string): Promise<PowerDnsError> {
  const text = await response.text().catch(() => "");
  let said = text.slice(0, 200);
  try {
    said = (JSON.parse(text) as { error?: string }).error ?? said;
  } catch {
    // not JSON: its text as it came
  }
  return new PowerDnsError(
    `PowerDNS refused to ${doing}: ${response.status} ${said}`.trim(),
    response.status,
  );
}

/** Creates the zone (Native, with these NS names) unless it exists. */
export async function ensureZone(target: PowerDnsTarget, zone: string, nameservers: string[]): Promise<void> {
  const name = absolute(zone);
  const found = await call(target, "GET", `/zones/${encodeURIComponent(name)}?rrsets=false`);
  if (found.ok) return;
  if (found.status !== 404 && found.status !== 422) throw await failure(found, `read zone ${name}`);
  const created = await call(target, "POST", "/zones", {
    name,
    kind: "Native",
    nameservers: nameservers.map(absolute),
  });
  // Another app instance may have created it meanwhile.
  if (!created.ok && created.status !== 409) throw await failure(created, `create zone ${name}`);
}

/** Sets the PTR of `owner` (a reverse name) in `zone` to `target`, or removes it (`target` null). */
export async function writePtr(
  dns: PowerDnsTarget,
  zone: string,
  owner: string,
  target: string | null,
  ttlSeconds: number,
): Promise<void> {
  const rrset =
    target === null
      ? { name: absolute(owner), type: "PTR", changetype: "DELETE" }
      : {
          name: absolute(owner),
          type: "PTR",
          ttl: ttlSeconds,
          changetype: "REPLACE",
          records: [{ content: absolute(target), disabled: false }],
        };
  const response = await call(dns, "PATCH", `/zones/${encodeURIComponent(absolute(zone))}`, {
    rrsets: [rrset],
  });
  if (!response.ok) throw await failure(response, `write the PTR of ${owner}`);
}
