import { describe, expect, it } from "vitest";
import { MAX_PAGE_LIMIT } from "@/lib/api/schemas/common";
import { ApiError } from "./errors";
import { encodeCursor, readPageRequest, toPage } from "./pagination";

const url = (query: string) => new URL(`http://127.0.0.1/api/v1/servers${query}`);

describe("readPageRequest", () => {
  it("uses the default limit and no cursor when none are given", () => {
    expect(readPageRequest(url(""), 50)).toEqual({ limit: 50, beforeId: undefined });
  });

  it("reads a limit and a cursor made by encodeCursor", () => {
    expect(readPageRequest(url(`?limit=7&cursor=${encodeCursor(1234)}`), 50)).toEqual({
      limit: 7,
      beforeId: 1234,
    });
  });

  it.each(["0", "-1", "101", "1.5", "abc", "", "99999"])("refuses limit=%s with invalid_limit", (limit) => {
    const attempt = () => readPageRequest(url(`?limit=${limit}`), 50);
    expect(attempt).toThrow(ApiError);
    expect(attempt).toThrow(/1 to 100/);
    try {
      attempt();
    } catch (error) {
      expect((error as ApiError).code).toBe("invalid_limit");
      expect((error as ApiError).status).toBe(400);
    }
  });

  it.each([
    "12",
    "not-base64!",
    Buffer.from("p1.0").toString("base64url"),
    Buffer.from("p1.-5").toString("base64url"),
    Buffer.from("p2.5").toString("base64url"),
    Buffer.from("p1.99999999999").toString("base64url"),
  ])("refuses cursor %s with invalid_cursor", (cursor) => {
    try {
      readPageRequest(url(`?cursor=${encodeURIComponent(cursor)}`), 50);
      expect.unreachable();
    } catch (error) {
      expect((error as ApiError).code).toBe("invalid_cursor");
    }
  });
});

describe("toPage", () => {
  const rows = [5, 4, 3].map((id) => ({ id }));

  it("says there is more when the extra row came back, pointing after the last row shown", () => {
    const page = toPage(rows, 2, (row) => row.id);
    expect(page.items).toEqual([5, 4]);
    expect(readPageRequest(url(`?cursor=${page.nextCursor}`), 2).beforeId).toBe(4);
  });

  it("has no cursor on the last page", () => {
    expect(toPage(rows, 3, (row) => row.id)).toEqual({ items: [5, 4, 3], nextCursor: null });
    expect(toPage([], MAX_PAGE_LIMIT, (row: { id: number }) => row.id)).toEqual({
      items: [],
      nextCursor: null,
    });
  });
});
