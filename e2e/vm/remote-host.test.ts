/**
 * A second hypervisor host reached only through a remote libvirt URI (qemu+libssh to a local sshd, key-only,
 * pinned host key): the provisioner creates volumes, defines and starts the domain, copies its running disk
 * into a snapshot and back, boots the rescue system with the server's disk attached and the server again,
 * and removes it all through that URI. Boots the TINY TEST GUEST, not Debian, and only the one.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { balanceOf, fund } from "../api/funding";
import { api, createAccount, targetApp } from "../api/helpers";
import { addOperator, operatorApi, signInOperator } from "../support/operator";
import {
  domstate,
  editDiskFromRescue,
  type Server,
  sshRun,
  sshWhenUp,
  TINY_POOL,
  TINY_PREFIX,
  virsh,
  volumes,
  waitFor,
} from "./host";

targetApp("tinyBaseUrl");

describe("a second host over a remote libvirt URI (tiny test guest)", () => {
  it("orders a server on the remote host, logs in over SSH, and destroys it", async () => {
    const { apiKey } = await createAccount();
    await fund(apiKey, 30);
    const funded = await balanceOf(apiKey);
    // Location se has only remote-1, whose URI is qemu+libssh://root@127.0.0.1:<port>/system?keyfile=...
    const ordered = await api("/servers", {
      method: "POST",
      key: apiKey,
      body: { plan: "pup", location: "se", os: "debian-12", hostname: "far-one" },
    });
    expect(ordered.status).toBe(201);
    const created = ordered.body as unknown as Server & { root_password: string };
    const read = async () => (await api(`/servers/${created.id}`, { key: apiKey })).body as unknown as Server;
    const server = await waitFor(read, (s) => s.status !== "provisioning", 120_000);
    expect(server).toMatchObject({ status: "active", power_state: "running", status_reason: null });
    const domain = `${TINY_PREFIX}${created.id}`;
    expect(await domstate(domain)).toBe("running");
    expect(await volumes(TINY_POOL)).toEqual(
      expect.arrayContaining([`${domain}.qcow2`, `${domain}-seed.iso`]),
    );

    // The operator's host view reads libvirt itself: the machine is there, matched to its row, on a host
    // whose CPUs and memory libvirt reports; a domain defined by hand under the prefix is named as having no row.
    const stray = `${TINY_PREFIX}999999`;
    const scratch = mkdtempSync(path.join(tmpdir(), "vps-stray-"));
    const xml = path.join(scratch, "stray.xml");
    writeFileSync(
      xml,
      `<domain type='qemu'><name>${stray}</name><memory unit='MiB'>64</memory><vcpu>1</vcpu><os><type arch='x86_64'>hvm</type></os></domain>`,
    );
    expect((await virsh("define", xml)).ok).toBe(true);
    try {
      const operator = await addOperator(inject("tinyAppEnv"), "vm-ops", "read-only");
      const session = await signInOperator(inject("tinyBaseUrl"), operator);
      const hosts = (await operatorApi(inject("tinyBaseUrl"), session, "/hosts?fresh=1")).body.hosts as {
        name: string;
        sold: { memory_mb: number };
        libvirt: {
          status: string;
          cpus?: number;
          memory_mb?: number;
          assigned?: { domains: number };
          stray_domains?: { name: string; server_id: number | null; why: string }[];
          missing_domains?: { server_id: number }[];
        };
      }[];
      const remote = hosts.find((host) => host.name === "remote-1");
      expect(remote?.sold.memory_mb).toBeGreaterThanOrEqual(server.memory_mb as number);
      expect(remote?.libvirt).toMatchObject({ status: "ok", missing_domains: [] });
      expect(remote?.libvirt.cpus).toBeGreaterThan(0);
      expect(remote?.libvirt.memory_mb).toBeGreaterThan(0);
      expect(remote?.libvirt.assigned?.domains).toBeGreaterThanOrEqual(1);
      expect(remote?.libvirt.stray_domains?.map((d) => d.name)).not.toContain(domain);
      expect(remote?.libvirt.stray_domains).toContainEqual({
        name: stray,
        server_id: 999999,
        running: false,
        why: "no server row",
      });
      expect(hosts.find((host) => host.name === "unreachable-1")?.libvirt.status).toBe("unreachable");
    } finally {
      await virsh("undefine", stray);
      rmSync(scratch, { recursive: true, force: true });
    }

    const login = { password: created.root_password };
    const pinned = server.ssh_host_key_fingerprint as string;
    const port = server.ssh_port as number;
    expect(await sshWhenUp(port, pinned, login, "hostname", 120_000)).toBe("far-one");

    // A snapshot of the running machine and a restore, through the remote URI and the host's own pool.
    await sshRun(port, pinned, login, "echo far > /root/marker && sync");
    const taken = await api(`/servers/${created.id}/snapshots`, { method: "POST", key: apiKey });
    expect(taken.status).toBe(202);
    const snapshotId = taken.body.id as number;
    const snapshot = await waitFor(
      async () => (await api(`/servers/${created.id}/snapshots/${snapshotId}`, { key: apiKey })).body,
      (s) => s.state !== "creating",
      120_000,
    );
    expect(snapshot).toMatchObject({ state: "available", consistency: "crash_consistent" });
    expect(await volumes(TINY_POOL)).toContain(`${domain}-snap-${snapshotId}.qcow2`);
    await sshRun(port, pinned, login, "rm /root/marker && sync");
    const restoring = await api(`/servers/${created.id}/snapshots/${snapshotId}/restore`, {
      method: "POST",
      key: apiKey,
      body: { confirm: "far-one" },
    });
    expect(restoring.status).toBe(202);
    await waitFor(read, (s) => s.status !== "provisioning", 120_000);
    expect(await sshWhenUp(port, pinned, login, "cat /root/marker", 120_000)).toBe("far");

    // Rescue mode through the remote URI: the rescue system (the host's own copy of its kernel and initramfs)
    // boots on the same port with a host key of its own and a temporary password; the server's disk is there,
    // unmounted, and what is written to it is on the server once it boots its own disk again.
    const entering = await api(`/servers/${created.id}/rescue`, { method: "POST", key: apiKey });
    expect(entering.status).toBe(202);
    const rescueLogin = { password: entering.body.rescue_password as string };
    const inRescue = await waitFor(read, (s) => s.rescue?.state === "active", 120_000);
    const rescueKey = inRescue.rescue?.ssh_host_key_fingerprint as string;
    expect(rescueKey).toMatch(/^SHA256:/);
    expect(rescueKey).not.toBe(pinned);
    expect(await sshWhenUp(port, rescueKey, rescueLogin, "hostname", 120_000)).toBe("rescue");
    expect(
      await editDiskFromRescue(port, rescueKey, rescueLogin, {
        file: "marker",
        written: "rescued",
        text: "seen-from-rescue",
      }),
    ).toBe("far");
    const leaving = await api(`/servers/${created.id}/rescue`, { method: "DELETE", key: apiKey });
    expect(leaving.status).toBe(202);
    await waitFor(read, (s) => s.rescue === null && s.status === "active", 120_000);
    expect(await sshWhenUp(port, pinned, login, "hostname; cat /root/rescued", 120_000)).toBe(
      "far-one\nseen-from-rescue",
    );

    const stopped = await api(`/servers/${created.id}/actions`, {
      method: "POST",
      key: apiKey,
      body: { action: "stop" },
    });
    expect(stopped.body.power_state).toBe("stopped");
    expect(await domstate(domain)).toBe("shut off");

    expect((await api(`/servers/${created.id}`, { method: "DELETE", key: apiKey })).status).toBe(200);
    await waitFor(
      () => domstate(domain),
      (state) => state === "missing",
      60_000,
    );
    await waitFor(
      () => volumes(TINY_POOL),
      (names) => !names.some((name) => name.startsWith(`${domain}.`) || name.startsWith(`${domain}-`)),
      30_000,
    );
    expect(await balanceOf(apiKey)).toBeLessThan(funded);
  });
});
