import { randomBytes } from "node:crypto";
import { parse, stringify } from "yaml";

/**
 * The owner's cloud-init user data merged into the service's seed, as one step after the service's user-data is
 * written (cloud-init.ts): whatever the service's part sets wins, so the password, root's keys, the pinned host
 * key, sshd's settings and the network stay as the API says they are.
 *
 * - A `#cloud-config` document is merged key by key into one document: every key the service sets is the
 *   service's; `write_files`, `bootcmd` and `users` are joined (the owner's entries first, without any for a
 *   path the service writes or for root); `chpasswd` loses its lines for root; keys that would change root's
 *   login, the hostname or the network are dropped from the owner's part.
 * - A script is a second part of a MIME multipart user-data, after the service's cloud-config: cloud-init runs
 *   it once, at the end of the first boot.
 */

type Mapping = Record<string, unknown>;

/**
 * The owner's keys dropped even where the service's part does not set them: they would change root's login,
 * the hostname or the network (or how cloud-init merges parts, which this merge decides).
 */
const DROPPED = [
  "ssh_pwauth",
  "disable_root_opts",
  "hostname",
  "fqdn",
  "preserve_hostname",
  "prefer_fqdn_over_hostname",
  "network",
  "merge_how",
  "merge_type",
] as const;

const isMapping = (value: unknown): value is Mapping =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const asList = (value: unknown): unknown[] =>
  Array.isArray(value) ? value : value === undefined ? [] : [value];

const namesRoot = (entry: unknown) => entry === "root" || (isMapping(entry) && entry.name === "root");

const pathOf = (entry: unknown) => (isMapping(entry) ? entry.path : undefined);

/** The owner's chpasswd without any line or entry for root (other users' passwords are theirs to set). */
function withoutRoot(chpasswd: unknown): unknown {
  if (!isMapping(chpasswd)) return undefined;
  const kept: Mapping = { ...chpasswd };
  if (typeof kept.list === "string") {
    kept.list = kept.list
      .split("\n")
      .filter((line) => !line.trim().startsWith("root:"))
      .join("\n");
  } else if (Array.isArray(kept.list)) {
    kept.list = kept.list.filter((line) => !(typeof line === "string" && line.trim().startsWith("root:")));
  }
  if (Array.isArray(kept.users)) kept.users = kept.users.filter((entry) => !namesRoot(entry));
  return kept;
}

/** The merged cloud-config mapping: the owner's, then the service's over it (see above). */
export function mergeCloudConfig(service: Mapping, owner: Mapping): Mapping {
  const merged: Mapping = { ...owner };
  for (const key of DROPPED) delete merged[key];
  if ("chpasswd" in merged) merged.chpasswd = withoutRoot(merged.chpasswd);
  for (const [key, value] of Object.entries(service)) {
    if (key === "write_files") {
      const ours = new Set(asList(value).map(pathOf));
      merged[key] = [...asList(owner[key]).filter((entry) => !ours.has(pathOf(entry))), ...asList(value)];
    } else if (key === "users") {
      merged[key] = [...asList(owner[key]).filter((entry) => !namesRoot(entry)), ...asList(value)];
    } else if (key === "bootcmd") {
      merged[key] = [...asList(owner[key]), ...asList(value)];
    } else {
      merged[key] = value;
    }
  }
  return merged;
}

/** One MIME part, base64 so that no byte of it can end the part early. */
const part = (type: string, text: string) =>
  [
    `Content-Type: ${type}; charset="utf-8"`,
    "MIME-Version: 1.0",
    "Content-Transfer-Encoding: base64",
    "",
    (
      Buffer.from(text, "utf8")
        .toString("base64")
        .match(/.{1,76}/g) ?? []
    ).join("\n"),
  ].join("\n");

/** The service's user-data with the owner's (checked by lib/servers/user-data.ts) merged in, or alone. */
export function withOwnerUserData(service: string, owner: string | undefined): string {
  if (owner === undefined) return service;
  if (owner.startsWith("#!")) {
    const boundary = `==vps-${randomBytes(12).toString("hex")}==`;
    return [
      `Content-Type: multipart/mixed; boundary="${boundary}"`,
      "MIME-Version: 1.0",
      "",
      `--${boundary}`,
      part("text/cloud-config", service),
      `--${boundary}`,
      part("text/x-shellscript", owner),
      `--${boundary}--`,
      "",
    ].join("\n");
  }
  const ours = parse(service) as Mapping;
  const theirs = parse(owner) ?? {};
  const merged = mergeCloudConfig(ours, isMapping(theirs) ? theirs : {});
  // lineWidth 0: keys and hashes stay on one line each, as the service's own part writes them.
  return `#cloud-config\n${stringify(merged, { lineWidth: 0 })}`;
}
