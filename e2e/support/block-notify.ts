/**
 * litecoind's `-blocknotify` for the node suite, as an operator sets it up (deploy/notify/block-notify.sh with a
 * header file holding the shared secret), with two test controls: the apps it notifies (more than one may
 * listen, each on its own port) and a switch that loses every notice on purpose.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const SCRIPT = path.resolve(import.meta.dirname, "../../deploy/notify/block-notify.sh");

export type BlockNotifyFixture = {
  /** What DEPOSIT_NOTIFY_SECRET must be in every app it notifies. */
  secret: string;
  /** The `-blocknotify` command for the node. */
  command: string;
  /** Where its files are, for another test process (see `blockNotifyControls`). */
  dir: string;
  remove: () => void;
};

export function startBlockNotify(network: string): BlockNotifyFixture {
  const dir = mkdtempSync(path.join(tmpdir(), "vps-notify-"));
  const secret = randomBytes(24).toString("hex");
  const header = path.join(dir, "header");
  writeFileSync(header, `Authorization: Bearer ${secret}\n`, { mode: 0o600 });
  writeFileSync(path.join(dir, "targets"), "");
  const notify = path.join(dir, "notify.sh");
  writeFileSync(
    notify,
    [
      "#!/bin/sh",
      `[ -e "${dir}/lost" ] && exit 0`,
      `exec sh "${SCRIPT}" ${network} "${header}" $(cat "${dir}/targets")`,
      "",
    ].join("\n"),
  );
  chmodSync(notify, 0o700);
  return {
    secret,
    command: `sh ${notify}`,
    dir,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The controls of a fixture made by `startBlockNotify`, from its folder. */
export function blockNotifyControls(dir: string) {
  const targets = path.join(dir, "targets");
  const lost = path.join(dir, "lost");
  const read = () => readFileSync(targets, "utf8").split(/\s+/).filter(Boolean);
  return {
    /** Notifies the app listening at `url` (DEPOSIT_NOTIFY_LISTEN as a URL) from now on. */
    add(url: string) {
      writeFileSync(targets, [...read(), url].join("\n"));
    },
    remove(url: string) {
      writeFileSync(
        targets,
        read()
          .filter((target) => target !== url)
          .join("\n"),
      );
    },
    /** Loses every notice until called with false. */
    lose(on: boolean) {
      if (on) writeFileSync(lost, "");
      else rmSync(lost, { force: true });
    },
  };
}
