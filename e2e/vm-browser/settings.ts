/** The browser VM test's own prefix, folder and ports, derived from the vm suite's (see e2e/vm/host.ts). */
import { DISKS_DIR, PREFIX, TINY_IMAGES_DIR } from "../vm/host";

const sshPortBase = Number(process.env.VM_TEST_SSH_PORT_BASE ?? 23600);

export const BROWSER_VM = {
  prefix: `${PREFIX}w`,
  pool: `${PREFIX}wdisks`,
  disksDir: `${DISKS_DIR}-web`,
  imagesDir: TINY_IMAGES_DIR,
  sshPortBase: sshPortBase + 700,
  appPort: Number(process.env.E2E_PORT ?? sshPortBase + 900),
};
