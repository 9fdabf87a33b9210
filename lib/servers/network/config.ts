import "server-only";
import { z } from "zod";
import { ConfigError, envSlice, httpUrl, optionalText } from "@/lib/config/slice";
import { canonicalAddress } from "./addresses";

/** Reverse DNS through PowerDNS's HTTP API, and the forward lookups that confirm a name before it is set. */
export type RdnsSettings = {
  /** PowerDNS's API (`http://127.0.0.1:8081`) and key; undefined: reverse DNS is not managed here. */
  powerdns: { url: string; apiKey: string; serverId: string; timeoutMs: number } | undefined;
  /** Default PTRs are `<address with dashes>.<defaultDomain>`. */
  defaultDomain: string;
  /** NS records of the reverse zones this service creates in PowerDNS. */
  nameservers: string[];
  ttlSeconds: number;
  /** Resolvers asked whether a name points back at its address (`ip` or `ip:port`); empty: the system's. */
  resolvers: string[];
  lookupTimeoutMs: number;
};

/** A resolver as c-ares takes it: `192.0.2.53`, `192.0.2.53:5353`, `2001:db8::53`, `[2001:db8::53]:5353`. */
function validResolver(text: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text);
  if (bracketed)
    return canonicalAddress(bracketed[1] ?? "") !== undefined && Number(bracketed[2] ?? 53) <= 65535;
  const [host = "", port, ...rest] = text.split(":");
  if (rest.length > 0) return canonicalAddress(text) !== undefined;
  return (
    canonicalAddress(host) !== undefined &&
    (port === undefined || (/^\d{1,5}$/.test(port) && Number(port) <= 65535))
  );
}

const list = (text: string | undefined) =>
  (text ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");

const DOMAIN = /^(?=.{1,200}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

export const RDNS_SETTINGS = envSlice({
  name: "rdns",
  shape: {
    PDNS_API_URL: httpUrl,
    PDNS_API_KEY: optionalText,
    PDNS_SERVER_ID: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/)
      .default("localhost"),
    RDNS_DEFAULT_DOMAIN: optionalText,
    RDNS_NAMESERVERS: optionalText,
    RDNS_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3600),
    RDNS_RESOLVERS: optionalText,
    RDNS_LOOKUP_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(3000),
    PDNS_API_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  },
  derive(values): RdnsSettings {
    const problems: string[] = [];
    if (values.PDNS_API_URL && !values.PDNS_API_KEY)
      problems.push("PDNS_API_KEY: required with PDNS_API_URL");
    if (values.PDNS_API_URL && !values.RDNS_DEFAULT_DOMAIN) {
      problems.push("RDNS_DEFAULT_DOMAIN: required with PDNS_API_URL (default PTRs are named under it)");
    }
    const defaultDomain = (values.RDNS_DEFAULT_DOMAIN ?? "rdns.invalid").replace(/\.$/, "").toLowerCase();
    if (!DOMAIN.test(defaultDomain)) problems.push("RDNS_DEFAULT_DOMAIN: must be a domain name");
    const nameservers = list(values.RDNS_NAMESERVERS).map((name) => name.replace(/\.$/, "").toLowerCase());
    if (nameservers.some((name) => !DOMAIN.test(name))) {
      problems.push("RDNS_NAMESERVERS: must be host names, separated by commas");
    }
    const resolvers = list(values.RDNS_RESOLVERS);
    if (resolvers.some((resolver) => !validResolver(resolver))) {
      problems.push("RDNS_RESOLVERS: must be IP addresses (ip, ip:port or [ipv6]:port), separated by commas");
    }
    if (problems.length > 0) throw new ConfigError(problems);
    return {
      powerdns:
        values.PDNS_API_URL && values.PDNS_API_KEY
          ? {
              url: values.PDNS_API_URL.replace(/\/+$/, ""),
              apiKey: values.PDNS_API_KEY,
              serverId: values.PDNS_SERVER_ID,
              timeoutMs: values.PDNS_API_TIMEOUT_MS,
            }
          : undefined,
      defaultDomain,
      nameservers,
      ttlSeconds: values.RDNS_TTL_SECONDS,
      resolvers,
      lookupTimeoutMs: values.RDNS_LOOKUP_TIMEOUT_MS,
    };
  },
});

export const rdnsSettings = (): RdnsSettings => RDNS_SETTINGS.read();
