import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fingerprintOf, generateHostKey, metaData, sha512Crypt, userData } from "./cloud-init";
import { domainXml } from "./domain";
import { hasHardwareVirt, powerStateOf, SSH_PROBE_MAX_BYTES, sshAnswers } from "./provisioner";

/** A TCP server on 127.0.0.1 that treats each connection with `serve`; returns its port and a closer. */
async function localServer(serve: (socket: Socket) => void): Promise<{ port: number; close: () => void }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
    serve(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

describe("libvirt provisioner parts", () => {
  it("hashes passwords with SHA-512 crypt that openssl reproduces from the same salt", async () => {
    const hash = await sha512Crypt("Correct-Horse-42 $x");
    const salt = hash.split("$")[2] as string;
    const again = execFileSync("openssl", ["passwd", "-6", "-salt", salt, "-stdin"], {
      input: "Correct-Horse-42 $x\n",
    })
      .toString()
      .trim();
    expect(again).toBe(hash);
    await expect(sha512Crypt("two\nlines")).rejects.toThrow(RangeError);
  });

  it("pins a generated host key whose fingerprint is the one ssh-keygen prints", () => {
    const key = generateHostKey();
    const dir = mkdtempSync(path.join(tmpdir(), "vps-key-"));
    writeFileSync(path.join(dir, "key.pub"), `${key.publicKey}\n`);
    const printed = execFileSync("ssh-keygen", [
      "-l",
      "-E",
      "sha256",
      "-f",
      path.join(dir, "key.pub"),
    ]).toString();
    expect(printed.split(" ")[1]).toBe(key.fingerprint);
    expect(fingerprintOf(key.publicKey)).toBe(key.fingerprint);
    const data = userData({ passwordHash: "$6$salt$hash", sshKeys: ["ssh-ed25519 AAAA me"], hostKey: key });
    expect(data).toContain('hashed_passwd: "$6$salt$hash"');
    expect(data).toContain('ssh_authorized_keys: ["ssh-ed25519 AAAA me"]');
    expect(data).toContain(key.privateKey.split("\n")[1]);
    expect(metaData("vps-1-1", "web-1")).toBe('instance-id: "vps-1-1"\nlocal-hostname: "web-1"\n');
  });

  it("uses KVM only where the CPU flags say so, and TCG with a smaller translation cache otherwise", () => {
    expect(hasHardwareVirt("flags : fpu vme de pse tsc msr pae mce cx8 apic sep")).toBe(false);
    expect(hasHardwareVirt("flags : fpu vme vmx ept")).toBe(true);
    expect(hasHardwareVirt("<feature name='svm'/>")).toBe(true);
    const spec = {
      name: "vps-7",
      memoryMb: 1024,
      vcpus: 1,
      pool: "vps-disks",
      diskVolume: "vps-7.qcow2",
      seedVolume: "vps-7-seed.iso",
      sshForwardPort: 22007,
      mac: "52:54:00:00:00:02",
    };
    const tcg = domainXml({ ...spec, virtType: "qemu" });
    expect(tcg).toContain("<domain type='qemu'");
    expect(tcg).toContain("<tb-cache unit='MiB'>128</tb-cache>");
    expect(tcg).toContain("user,id=vpsnet0,restrict=on,hostfwd=tcp:127.0.0.1:22007-:22");
    expect(tcg).toContain("addr=0x1e");
    const kvm = domainXml({ ...spec, virtType: "kvm", name: "a'<b>" });
    expect(kvm).toContain("<domain type='kvm'");
    expect(kvm).toContain("host-passthrough");
    expect(kvm).not.toContain("tb-cache");
    expect(kvm).toContain("<name>a&#39;&#60;b&#62;</name>");
    // An image with its own kernel boots from the disk; the rescue system keeps its root in memory.
    const own = domainXml({
      ...spec,
      virtType: "qemu",
      kernel: { kernel: "/i/os.vmlinuz", initrd: "/i/os.initrd" },
    });
    expect(own).toContain(
      "<cmdline>root=/dev/vda rw console=ttyS0 clocksource=hpet no_timer_check</cmdline>",
    );
    const rescue = domainXml({
      ...spec,
      virtType: "qemu",
      seedVolume: "vps-7-rescue-seed.iso",
      kernel: {
        kernel: "/i/rescue.vmlinuz",
        initrd: "/i/rescue.initrd",
        cmdline: "console=ttyS0 vps.rescue=1",
      },
    });
    expect(rescue).toContain("<kernel>/i/rescue.vmlinuz</kernel><initrd>/i/rescue.initrd</initrd>");
    expect(rescue).toContain("<cmdline>console=ttyS0 vps.rescue=1</cmdline>");
    expect(rescue).not.toContain("root=/dev/vda");
    expect(rescue).toContain("volume='vps-7.qcow2'");
    expect(rescue).toContain("volume='vps-7-rescue-seed.iso'");
  });

  it("boots a direct kernel without its IO-APIC timer check, which a guest starved of CPU fails and panics on", () => {
    const xml = domainXml({
      name: "vps-8",
      virtType: "qemu",
      memoryMb: 256,
      vcpus: 1,
      pool: "vps-disks",
      diskVolume: "vps-8.qcow2",
      seedVolume: "vps-8-seed.iso",
      kernel: { kernel: "/images/debian-12.vmlinuz", initrd: "/images/debian-12.initrd" },
      sshForwardPort: 22008,
      mac: "52:54:00:00:00:03",
    });
    const cmdline = /<cmdline>([^<]*)<\/cmdline>/.exec(xml)?.[1]?.split(" ");
    expect(cmdline).toEqual(expect.arrayContaining(["console=ttyS0", "no_timer_check"]));
  });

  it("the SSH readiness probe sees an SSH server's identification line", async () => {
    const sshd = await localServer((socket) => socket.write("SSH-2.0-dropbear_2022.83\r\n"));
    try {
      expect(await sshAnswers("127.0.0.1", sshd.port)).toBe(true);
    } finally {
      sshd.close();
    }
  });

  it("the probe gives up on an endless stream that is not SSH at its byte cap, long before its deadline", async () => {
    let sent = 0;
    const flood = await localServer((socket) => {
      const chunk = Buffer.alloc(64 * 1024, "x");
      const pump = () => {
        while (!socket.destroyed && socket.write(chunk)) sent += chunk.length;
      };
      socket.on("drain", pump);
      pump();
    });
    try {
      const started = Date.now();
      expect(await sshAnswers("127.0.0.1", flood.port, 10_000)).toBe(false);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(sent).toBeGreaterThan(SSH_PROBE_MAX_BYTES);
      // An identification line after the cap is not looked for.
      const late = await localServer((socket) =>
        socket.write(`${"x".repeat(SSH_PROBE_MAX_BYTES)}SSH-2.0-late\r\n`),
      );
      try {
        expect(await sshAnswers("127.0.0.1", late.port)).toBe(false);
      } finally {
        late.close();
      }
    } finally {
      flood.close();
    }
  });

  it("the probe gives up at its deadline on a stream that trickles without ever saying SSH", async () => {
    const trickle = await localServer((socket) => {
      const timer = setInterval(() => socket.write("x"), 20);
      socket.on("close", () => clearInterval(timer));
    });
    try {
      const started = Date.now();
      expect(await sshAnswers("127.0.0.1", trickle.port, 600)).toBe(false);
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(550);
      expect(took).toBeLessThan(1_500);
    } finally {
      trickle.close();
    }
  });

  it("reads virsh domstate as the API's power state", () => {
    expect(powerStateOf("running\n")).toBe("running");
    expect(powerStateOf("in shutdown")).toBe("running");
    expect(powerStateOf("shut off")).toBe("stopped");
    expect(powerStateOf("crashed")).toBe("stopped");
  });
  it("a new definition of an existing domain keeps its UUID, which libvirt requires (its test driver)", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "vps-define-"));
    const spec = {
      name: "vps-9",
      memoryMb: 512,
      vcpus: 1,
      virtType: "qemu" as const,
      pool: "vps-disks",
      diskVolume: "vps-9.qcow2",
      seedVolume: "vps-9-seed.iso",
      sshForwardPort: 22009,
      mac: "52:54:00:00:00:02",
    };
    const uuid = "6f0d3c5e-2a4b-4c1d-9e8f-0a1b2c3d4e5f";
    const files = {
      first: domainXml({ ...spec, uuid }),
      fresh: domainXml(spec),
      kept: domainXml({ ...spec, uuid, memoryMb: 1024 }),
    };
    for (const [name, xml] of Object.entries(files)) writeFileSync(path.join(dir, `${name}.xml`), xml);
    expect(files.fresh).not.toContain("<uuid>");
    // One virsh session: the test driver's domains last as long as its connection.
    const session = (...steps: string[]) =>
      execFileSync("virsh", ["-c", "test:///default", steps.join("; ")], {
        stdio: ["ignore", "pipe", "pipe"],
      }).toString();
    expect(() => session(`define ${dir}/first.xml`, `define ${dir}/fresh.xml`)).toThrow(
      /already exists with uuid/,
    );
    const kept = session(`define ${dir}/first.xml`, `define ${dir}/kept.xml`, "dominfo vps-9");
    expect(kept).toContain(uuid);
    expect(kept).toMatch(/Max memory:\s+1048576 KiB/);
    rmSync(dir, { recursive: true, force: true });
  });
});
