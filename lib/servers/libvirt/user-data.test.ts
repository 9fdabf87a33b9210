import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { generateHostKey, userData } from "./cloud-init";
import { withOwnerUserData } from "./user-data";

const hostKey = generateHostKey();
const SERVICE = userData({
  passwordHash: `$6$salt$${"a".repeat(86)}`,
  sshKeys: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBlo service@key"],
  hostKey,
});

/** The parts of a MIME multipart user-data, decoded: [content type, text]. */
function mimeParts(document: string): [string, string][] {
  const boundary = /boundary="([^"]+)"/.exec(document)?.[1];
  if (!boundary) throw new Error("no boundary");
  return document
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((part) => {
      const [head = "", body = ""] = part.trim().split("\n\n");
      const type = /Content-Type: ([^;]+)/.exec(head)?.[1] ?? "";
      return [type, Buffer.from(body.replace(/\n/g, ""), "base64").toString("utf8")];
    });
}

describe("the owner's user data merged into the seed", () => {
  it("none: the service's user-data byte for byte", () => {
    expect(withOwnerUserData(SERVICE, undefined)).toBe(SERVICE);
  });

  it("a #cloud-config: the owner's files, packages and commands join the service's, whose root login, host key and sshd settings win", () => {
    const owner = [
      "#cloud-config",
      "packages: [nginx]",
      "runcmd:",
      "  - [touch, /root/ran]",
      "bootcmd:",
      "  - echo owner-boot",
      "write_files:",
      "  - path: /etc/motd",
      "    content: hello from the owner",
      // Would switch root's password logins off: the service's file at this path wins.
      "  - path: /etc/ssh/sshd_config.d/10-vps.conf",
      "    content: PasswordAuthentication no",
      "users:",
      "  - default",
      "  - name: root",
      "    hashed_passwd: '$6$evil'",
      "  - name: alice",
      "    groups: sudo",
      "chpasswd:",
      "  expire: false",
      "  list: |",
      "    root:owned",
      "    alice:secret",
      "ssh_keys:",
      "  ed25519_private: not-the-pinned-key",
      "ssh_pwauth: false",
      "disable_root: true",
      "hostname: elsewhere",
      "locale: de_DE.UTF-8",
      "",
    ].join("\n");
    const merged = withOwnerUserData(SERVICE, owner);
    expect(merged.startsWith("#cloud-config\n")).toBe(true);
    const config = parse(merged) as Record<string, unknown>;
    const service = parse(SERVICE) as Record<string, unknown>;
    // The owner's own settings are there.
    expect(config.packages).toEqual(["nginx"]);
    expect(config.runcmd).toEqual([["touch", "/root/ran"]]);
    expect(config.bootcmd).toEqual(["echo owner-boot", ...(service.bootcmd as unknown[])]);
    expect(config.write_files).toEqual([
      { path: "/etc/motd", content: "hello from the owner" },
      ...(service.write_files as unknown[]),
    ]);
    expect(config.users).toEqual([
      "default",
      { name: "alice", groups: "sudo" },
      ...(service.users as unknown[]),
    ]);
    expect(config.chpasswd).toEqual({ expire: false, list: "alice:secret\n" });
    // Every key the service sets is the service's; root's login, hostname and network keys of the owner's are gone.
    for (const key of Object.keys(service).filter((k) => !["bootcmd", "write_files", "users"].includes(k))) {
      expect(config[key], key).toEqual(service[key]);
    }
    expect(config.ssh_keys).toEqual({
      ed25519_private: `${hostKey.privateKey.trimEnd()}\n`,
      ed25519_public: hostKey.publicKey,
    });
    for (const gone of ["ssh_pwauth", "hostname"]) expect(config, gone).not.toHaveProperty(gone);
  });

  it("a script: a second MIME part after the service's cloud-config, both intact", () => {
    const script = "#!/bin/sh\necho 'héllo' > /root/from-script\n";
    const merged = withOwnerUserData(SERVICE, script);
    expect(merged).toMatch(
      /^Content-Type: multipart\/mixed; boundary="==vps-[0-9a-f]{24}=="\nMIME-Version: 1\.0\n/,
    );
    expect(mimeParts(merged)).toEqual([
      ["text/cloud-config", SERVICE],
      ["text/x-shellscript", script],
    ]);
  });
});
