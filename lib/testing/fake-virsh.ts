import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * Runs `use` with a stand-in `virsh` first on PATH: the script of `lines` (its first line the interpreter),
 * in a folder of its own that `use` may also write to. PATH and the folder are put back afterwards.
 */
export async function withFakeVirsh<T>(lines: string[], use: (folder: string) => Promise<T>): Promise<T> {
  const folder = mkdtempSync(path.join(tmpdir(), "fake-virsh-"));
  writeFileSync(path.join(folder, "virsh"), [...lines, ""].join("\n"));
  chmodSync(path.join(folder, "virsh"), 0o755);
  const searchPath = process.env.PATH;
  process.env.PATH = `${folder}:${searchPath}`;
  try {
    return await use(folder);
  } finally {
    process.env.PATH = searchPath;
    rmSync(folder, { recursive: true, force: true });
  }
}
