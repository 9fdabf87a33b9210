import { describe, expect, it } from "vitest";
import { sshCommand } from "./ssh-command";

describe("sshCommand", () => {
  it("leaves out the default port", () => {
    expect(sshCommand("203.0.113.7", 22)).toBe("ssh root@203.0.113.7");
    expect(sshCommand("203.0.113.7", undefined)).toBe("ssh root@203.0.113.7");
  });

  it("names any other port", () => {
    expect(sshCommand("127.0.0.1", 22022)).toBe("ssh -p 22022 root@127.0.0.1");
  });

  it("brackets an IPv6 address", () => {
    expect(sshCommand("2001:db8::5", 22)).toBe("ssh root@[2001:db8::5]");
  });
});
