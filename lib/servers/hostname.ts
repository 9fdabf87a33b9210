import { randomString } from "@/lib/accounts/credentials";

/** RFC 1123 host names: dot-separated labels of letters, digits and inner hyphens, 253 characters at most. */
export function isValidHostname(name: string): boolean {
  if (name.length === 0 || name.length > 253) return false;
  return name.split(".").every((label) => /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i.test(label));
}

/** The default: plan, location and six random characters, e.g. `pup-nl-k3m9qa`. */
export const defaultHostname = (plan: string, location: string) =>
  `${plan}-${location}-${randomString("abcdefghijkmnpqrstuvwxyz23456789", 6)}`;
