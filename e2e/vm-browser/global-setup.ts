import { existsSync } from "node:fs";
import path from "node:path";
import { virsh, volumes } from "../vm/host";
import { BROWSER_VM } from "./settings";

/** Removes this test's domains and volumes (by its own prefix): before the run, and after it. */
async function cleanUp(): Promise<void> {
  const listed = await virsh("list", "--all", "--name");
  for (const name of listed.out.split("\n").map((line) => line.trim())) {
    if (!name.startsWith(BROWSER_VM.prefix)) continue;
    await virsh("destroy", name);
    await virsh("undefine", name);
  }
  for (const volume of await volumes(BROWSER_VM.pool)) {
    if (volume.startsWith(BROWSER_VM.prefix)) await virsh("vol-delete", "--pool", BROWSER_VM.pool, volume);
  }
}

export default async function globalSetup() {
  if (!existsSync(path.join(BROWSER_VM.imagesDir, "debian-12.qcow2"))) {
    throw new Error(`no tiny test guest in ${BROWSER_VM.imagesDir}: run \`npm run guest:build-tiny\` first`);
  }
  await cleanUp();
  return cleanUp;
}
