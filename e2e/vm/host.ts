/** What the real-VM suite checks on the host itself, through virsh (argument arrays, no shell). */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { promisify } from "node:util";
import ssh2 from "ssh2";

const exec = promisify(execFile);

export const URI = "qemu:///system";
// Overridable so two runs on one host (for instance two checkouts) do not touch each other's machines.
export const PREFIX = process.env.VM_TEST_PREFIX ?? "vpst-";
export const POOL = `${PREFIX}disks`;
export const IMAGES_DIR = process.env.GUEST_IMAGES_DIR ?? "/var/lib/vps/images";
export const DISKS_DIR = process.env.VM_TEST_DISKS_DIR ?? "/var/lib/vps/test-servers";
/**
 * The tiny TEST guest (busybox and dropbear on Debian's kernel, built by `npm run guest:build-tiny`): not
 * Debian, but stored under the catalog id the tests order, in an images folder of its own. Its app uses a
 * prefix, pool and folder of its own too, since server ids of two apps overlap.
 */
export const TINY_IMAGES_DIR = process.env.TINY_GUEST_DIR ?? "/var/lib/vps/test-images";
export const TINY_PREFIX = `${PREFIX}t`;
export const TINY_POOL = `${TINY_PREFIX}disks`;
/**
 * How long a tiny guest may take to build and answer on SSH. Alone it takes well under a minute; three at once
 * under TCG, beside the browser and API suites on two cores, once took over 120 s.
 */
export const TINY_BOOT_MS = 240_000;
export const TINY_DISKS_DIR = `${DISKS_DIR}-tiny`;

export async function virsh(...args: string[]): Promise<{ ok: boolean; out: string }> {
  try {
    const { stdout } = await exec("virsh", ["-c", URI, ...args], { env: { ...process.env, LC_ALL: "C" } });
    return { ok: true, out: stdout.trim() };
  } catch (error) {
    return { ok: false, out: String((error as { stderr?: string }).stderr ?? error) };
  }
}

export const domstate = async (name: string) => {
  const result = await virsh("domstate", name);
  return result.ok ? result.out : "missing";
};

export async function volumes(pool = POOL): Promise<string[]> {
  await virsh("pool-refresh", pool);
  const result = await virsh("vol-list", "--pool", pool, "--details");
  return result.ok ? result.out.split("\n").map((line) => line.trim().split(/\s+/)[0] ?? "") : [];
}

/** Removes every domain and volume with the test prefix: the suite leaves nothing behind. */
export async function cleanUpTestMachines(): Promise<void> {
  const listed = await virsh("list", "--all", "--name");
  for (const name of listed.out.split("\n").map((l) => l.trim())) {
    if (!name.startsWith(PREFIX)) continue;
    await virsh("destroy", name);
    await virsh("undefine", name);
  }
  for (const pool of [POOL, TINY_POOL]) {
    for (const volume of await volumes(pool)) {
      if (volume.startsWith(PREFIX)) await virsh("vol-delete", "--pool", pool, volume);
    }
  }
}

export const fingerprintOfKey = (key: Buffer) =>
  `SHA256:${createHash("sha256").update(key).digest("base64").replace(/=+$/, "")}`;

export type Login = { password?: string; privateKey?: string };
/** A forwarded port on 127.0.0.1, or a guest's own address on a bridge. */
export type SshTarget = number | { host: string; port: number };

/**
 * Logs in as root over SSH, accepting only the pinned host key, runs `command` (with `input` on its standard
 * input, if given) and returns its output. Rejects when the connection is refused or the host key differs.
 * A connection reset before the SSH handshake is tried again, every second until `timeoutMs`: QEMU's user
 * network accepts on the host's side and resets when nothing in the guest takes the connection (its sshd
 * busy, or not started yet after a reboot), which is no answer, and no command ran.
 */
export async function sshRun(
  target: SshTarget,
  fingerprint: string,
  login: Login,
  command: string,
  // A guest still finishing cloud-init under TCG on a busy host can take this long to log in.
  timeoutMs = 60_000,
  input?: Buffer,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await sshRunOnce(
        target,
        fingerprint,
        login,
        command,
        Math.max(deadline - Date.now(), 1_000),
        input,
      );
    } catch (error) {
      const resetBeforeHandshake = (error as { resetBeforeHandshake?: boolean }).resetBeforeHandshake;
      if (!resetBeforeHandshake || Date.now() + 1_000 >= deadline) {
        throw new Error(`ssh "${command}": ${(error as Error).message}`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

function sshRunOnce(
  target: SshTarget,
  fingerprint: string,
  login: Login,
  command: string,
  timeoutMs: number,
  input?: Buffer,
): Promise<string> {
  const { host, port } = typeof target === "number" ? { host: "127.0.0.1", port: target } : target;
  return new Promise((resolve, reject) => {
    const client = new ssh2.Client();
    let seen: string | undefined;
    let ready = false;
    const timer = setTimeout(() => {
      client.end();
      reject(new Error("ssh timed out"));
    }, timeoutMs);
    client
      .on("ready", () => {
        ready = true;
        client.exec(command, (error, stream) => {
          if (error) {
            clearTimeout(timer);
            client.end();
            reject(error);
            return;
          }
          let out = "";
          stream.on("data", (chunk: Buffer) => {
            out += chunk.toString();
          });
          if (input) stream.end(input);
          stream.stderr.on("data", () => {});
          stream.on("close", () => {
            clearTimeout(timer);
            client.end();
            resolve(out.trim());
          });
        });
      })
      .on("error", (error: Error & { code?: string }) => {
        clearTimeout(timer);
        if (seen && seen !== fingerprint) {
          reject(new Error(`host key ${seen} is not the pinned ${fingerprint}`));
          return;
        }
        reject(Object.assign(error, { resetBeforeHandshake: !ready && error.code === "ECONNRESET" }));
      })
      .connect({
        host,
        port,
        username: "root",
        ...login,
        readyTimeout: timeoutMs,
        hostVerifier: (key: Buffer) => {
          seen = fingerprintOfKey(key);
          return seen === fingerprint;
        },
      });
  });
}

/** An SSH connection kept open: commands run over it one after another until it is ended. */
export type SshSession = { run: (command: string) => Promise<string>; end: () => void };

/** Logs in as root over SSH on the pinned host key and keeps the connection open (`sshRun` closes it). */
export function sshOpen(
  target: SshTarget,
  fingerprint: string,
  login: Login,
  timeoutMs = 60_000,
): Promise<SshSession> {
  const { host, port } = typeof target === "number" ? { host: "127.0.0.1", port: target } : target;
  const client = new ssh2.Client();
  const run = (command: string) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`ssh: ${command} timed out`)), timeoutMs);
      client.exec(command, (error, stream) => {
        if (error) {
          clearTimeout(timer);
          reject(error);
          return;
        }
        let out = "";
        stream.on("data", (chunk: Buffer) => {
          out += chunk.toString();
        });
        stream.stderr.on("data", () => {});
        stream.on("close", () => {
          clearTimeout(timer);
          resolve(out.trim());
        });
      });
    });
  return new Promise((resolve, reject) => {
    client
      .on("ready", () => resolve({ run, end: () => client.end() }))
      .on("error", reject)
      .connect({
        host,
        port,
        username: "root",
        ...login,
        readyTimeout: timeoutMs,
        hostVerifier: (key: Buffer) => fingerprintOfKey(key) === fingerprint,
      });
  });
}

/** Retries `sshRun` until it succeeds or `timeoutMs` passes (a machine still booting refuses). */
export async function sshWhenUp(
  target: SshTarget,
  fingerprint: string,
  login: Login,
  command: string,
  timeoutMs: number,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      return await sshRun(target, fingerprint, login, command);
    } catch (error) {
      last = error;
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
  }
  throw new Error(`no SSH login within ${timeoutMs} ms: ${(last as Error)?.message}`);
}

/**
 * In the rescue system on `target`: the server's disk is attached but not mounted. It is mounted on /mnt,
 * `file` on it read, `text` written into `written` and unmounted again; resolves to what `file` held.
 */
export async function editDiskFromRescue(
  target: SshTarget,
  rescueKey: string,
  login: Login,
  edit: { file: string; written: string; text: string },
): Promise<string> {
  if ((await sshRun(target, rescueKey, login, "grep -c '^/dev/vda ' /proc/mounts || true")) !== "0") {
    throw new Error("the server's disk is mounted in the rescue system");
  }
  return sshRun(
    target,
    rescueKey,
    login,
    `mount /dev/vda /mnt && cat /mnt/${edit.file} && echo ${edit.text} > /mnt/${edit.written} && umount /mnt`,
  );
}

export type Server = {
  id: number;
  status: string;
  hostname: string;
  ip: string | null;
  ipv6?: string | null;
  ipv6_prefix?: string | null;
  ssh_port: number | null;
  ssh_host_key_fingerprint: string | null;
  power_state: string | null;
  memory_mb: number;
  disk_gb: number;
  provisioner: string;
  status_reason: string | null;
  hypervisor?: string | null;
  retained_until?: string | null;
  terminated_at?: string | null;
  expires_at?: string;
  rescue?: { state: string; since: string; ssh_host_key_fingerprint: string | null } | null;
};

/** Reads until `done` holds or `timeoutMs` passes. */
export async function waitFor<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

export type Snapshot = {
  id: number;
  name: string;
  kind: string;
  state: string;
  size_bytes: number | null;
  consistency: string | null;
  kept_until: string | null;
};
