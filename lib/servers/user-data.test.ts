import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/api/errors";
import { USER_DATA_MAX_BYTES } from "@/lib/api/schemas/servers";
import { checkUserData, openUserData, sealUserData, userDataFacts } from "./user-data";

const refusal = (text: string) => {
  try {
    checkUserData(text);
  } catch (error) {
    if (error instanceof ApiError) return [error.status, error.code, error.message];
    throw error;
  }
  return undefined;
};

describe("cloud-init user data", () => {
  it("takes a #cloud-config mapping or a #! script up to 32 KiB", () => {
    expect(checkUserData("#cloud-config\nruncmd: [[touch, /root/x]]\n")).toBe("cloud-config");
    expect(checkUserData("#cloud-config\n")).toBe("cloud-config");
    expect(checkUserData("#!/bin/bash\necho hi\n")).toBe("script");
    const padded = `#!/bin/sh\n#${"x".repeat(USER_DATA_MAX_BYTES - 12)}\n`;
    expect(Buffer.byteLength(padded)).toBe(USER_DATA_MAX_BYTES);
    expect(checkUserData(padded)).toBe("script");
  });

  it("refuses anything else with 400 invalid_user_data, naming what is wrong and never quoting it", () => {
    const secret = "hunter2-secret";
    const cases: [string, RegExp][] = [
      ["", /it is empty/],
      [`#!/bin/sh\n#${"é".repeat(USER_DATA_MAX_BYTES / 2)}`, /above 32768/],
      [`runcmd: [${secret}]`, /first line is neither/],
      [`#cloud-config\nkey: [unclosed ${secret}\n`, /not valid YAML \(line \d+, column \d+\)/],
      [`#cloud-config\n- ${secret}\n`, /must be a mapping/],
      [`#!/bin/sh\n\0${secret}`, /NUL/],
    ];
    for (const [text, message] of cases) {
      const [status, code, said] = refusal(text) ?? [];
      expect([status, code], text.slice(0, 20)).toEqual([400, "invalid_user_data"]);
      expect(said).toMatch(message);
      expect(said).not.toContain(secret);
    }
  });

  it("shows only its SHA-256 and size; sealed, it opens only for its own server", () => {
    const text = "#cloud-config\nruncmd: [[touch, /root/x]]\n";
    expect(userDataFacts(text)).toEqual({
      // `printf '#cloud-config\nruncmd: [[touch, /root/x]]\n' | sha256sum`
      sha256: "2ea92098f8cbbe660c967ce81dc7b04c38c94f5d64f72e9628165aee99ad3300",
      bytes: Buffer.byteLength(text),
    });
    const key = randomBytes(32);
    const sealed = sealUserData(key, 7, text);
    expect(sealed).not.toContain("runcmd");
    expect(openUserData(key, 7, sealed)).toBe(text);
    expect(() => openUserData(key, 8, sealed)).toThrow();
  });
});
