import { createHash } from "node:crypto";
import ssh2 from "ssh2";
import { generateEd25519KeyPair } from "../ssh-keys";
import { networkConfig } from "./network";

const { utils } = ssh2;

import { run } from "./virsh";

/** SHA-512 crypt of a password, read by openssl from standard input (never on a command line). */
export async function sha512Crypt(password: string): Promise<string> {
  if (/[\r\n]/.test(password)) throw new RangeError("a password is one line");
  const hash = (await run("openssl", ["passwd", "-6", "-stdin"], { input: `${password}\n` })).trim();
  if (!/^\$6\$[^$]+\$[./0-9A-Za-z]{86}$/.test(hash))
    throw new Error("openssl passwd gave no SHA-512 crypt hash");
  return hash;
}

export type HostKey = { privateKey: string; publicKey: string; fingerprint: string };

/** The SHA256 fingerprint OpenSSH prints for a public key line ("SHA256:" + unpadded base64). */
export function fingerprintOf(publicKeyLine: string): string {
  const parsed = utils.parseKey(publicKeyLine);
  if (parsed instanceof Error) throw parsed;
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key) throw new Error("no key");
  const digest = createHash("sha256").update(key.getPublicSSH()).digest("base64");
  return `SHA256:${digest.replace(/=+$/, "")}`;
}

/** A fresh ed25519 host key for a guest, so its fingerprint is known before it boots. */
export function generateHostKey(): HostKey {
  const pair = generateEd25519KeyPair();
  const publicKey = pair.public.trim();
  return { privateKey: pair.private, publicKey, fingerprint: fingerprintOf(publicKey) };
}

const quote = (value: string) => JSON.stringify(value);

/** Kernel settings that keep the guest from taking routes or addresses from IPv6 router advertisements. */
export const NO_ROUTER_ADVERTISEMENTS = ["all", "default", "eth0"].flatMap((scope) => [
  `net.ipv6.conf.${scope}.accept_ra=0`,
  `net.ipv6.conf.${scope}.autoconf=0`,
]);
const block = (text: string, indent: string) =>
  text
    .trimEnd()
    .split("\n")
    .map((line) => `${indent}${line}`)
    .join("\n");

/**
 * The NoCloud user-data: root's password as a SHA-512 crypt hash and root's SSH keys (set by the users module,
 * before sshd starts), a pinned host key, and sshd settings allowing root logins. JSON strings are YAML.
 * IPv6 router advertisements are ignored from every boot on, also where the network renderer (ifupdown)
 * writes nothing for `accept-ra` on an IPv4-only interface.
 */
export function userData(input: { passwordHash: string; sshKeys: string[]; hostKey: HostKey }): string {
  return [
    "#cloud-config",
    "disable_root: false",
    "bootcmd:",
    `  - [sysctl, -e, -q, -w, ${NO_ROUTER_ADVERTISEMENTS.join(", ")}]`,
    "users:",
    "  - name: root",
    "    lock_passwd: false",
    `    hashed_passwd: ${quote(input.passwordHash)}`,
    `    ssh_authorized_keys: ${JSON.stringify(input.sshKeys)}`,
    "ssh_deletekeys: true",
    "ssh_genkeytypes: []",
    "ssh_keys:",
    "  ed25519_private: |",
    block(input.hostKey.privateKey, "    "),
    `  ed25519_public: ${quote(input.hostKey.publicKey)}`,
    "write_files:",
    "  - path: /etc/ssh/sshd_config.d/10-vps.conf",
    "    permissions: '0644'",
    `    content: ${quote("PermitRootLogin yes\nPasswordAuthentication yes\n")}`,
    "locale: false",
    "",
  ].join("\n");
}

export function metaData(instanceId: string, hostname: string): string {
  return `instance-id: ${quote(instanceId)}\nlocal-hostname: ${quote(hostname)}\n`;
}

/** Static addressing for QEMU's user-mode network: the guest address its forwarded port reaches. */
export const USER_NETWORK_MAC = "52:54:00:00:00:02";
export const USER_NETWORK_CONFIG = networkConfig({
  mac: USER_NETWORK_MAC,
  address: "10.0.2.15",
  prefix: 24,
  gateway: "10.0.2.2",
});
