import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEPOSIT_SETTINGS } from "@/lib/rails/deposits/config";
import { BOOT_POLL_MS } from "@/lib/servers/jobs";
import { STATUS_SETTINGS } from "./config";
import { statusMethods } from "./method";
import { HOST_DOWN_AFTER_MS } from "./states";

const collapsed = (text: string) => text.replace(/\s+/g, " ");

describe("the status page's method text", () => {
  it("is what docs/status-page.md tells customers, word for word, with the default settings", () => {
    const methods = statusMethods({
      refreshSeconds: STATUS_SETTINGS.defaults().STATUS_REFRESH_SECONDS,
      passSeconds: DEPOSIT_SETTINGS.defaults().WATCHER_INTERVAL_MS / 1000,
      sshProbeSeconds: BOOT_POLL_MS / 1000,
      hostDownSeconds: HOST_DOWN_AFTER_MS / 1000,
    });
    const page = collapsed(readFileSync(path.join(process.cwd(), "docs/status-page.md"), "utf8"));
    const missing = Object.entries(methods).filter(([, text]) => !page.includes(collapsed(text)));
    expect(missing.map(([name]) => name)).toEqual([]);
  });

  it("follows the settings in force", () => {
    const methods = statusMethods({
      refreshSeconds: 1,
      passSeconds: 0.3,
      sshProbeSeconds: 2,
      hostDownSeconds: 120,
    });
    expect(methods.overview).toContain("at most once every 1 second ");
    expect(methods.credits).toContain("next look (every 0.3 seconds)");
  });
});
