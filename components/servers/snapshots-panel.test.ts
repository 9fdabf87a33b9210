import { describe, expect, it } from "vitest";
import { formatAge, formatBytes } from "./snapshots-panel";

describe("snapshot sizes and ages as the panel shows them", () => {
  it("gives a size in the largest unit that keeps it at 1 or more", () => {
    expect(formatBytes(null)).toBe("—");
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(1536)).toBe("1.5 KB");
    expect(formatBytes(1_073_938_432)).toBe("1.0 GB");
  });

  it("gives an age in its largest whole unit", () => {
    const at = Date.parse("2026-11-25T12:00:00Z");
    expect(formatAge("2026-11-25T11:59:30Z", at)).toBe("just now");
    expect(formatAge("2026-11-25T11:57:00Z", at)).toBe("3 minutes ago");
    expect(formatAge("2026-11-25T09:00:00Z", at)).toBe("3 hours ago");
    expect(formatAge("2026-11-24T11:00:00Z", at)).toBe("yesterday");
    expect(formatAge("2026-11-20T12:00:00Z", at)).toBe("5 days ago");
  });
});
