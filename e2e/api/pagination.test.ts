import { beforeAll, describe, expect, it } from "vitest";
import { fund } from "./funding";
import { api, createAccount, errorCode } from "./helpers";

type Listed = { id?: number; ref?: string };

/** Follows next_cursor from the first page to the last, returning each page's items. */
async function allPages(key: string, path: string, field: "servers" | "topups", limit: number) {
  const pages: Listed[][] = [];
  let cursor: string | null = null;
  do {
    const query: string = `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = await api(`${path}${query}`, { key });
    expect(page.status).toBe(200);
    pages.push(page.body[field] as Listed[]);
    cursor = page.body.next_cursor as string | null;
    expect(pages.length).toBeLessThan(20);
  } while (cursor);
  return pages;
}

describe("paginated lists", () => {
  let key: string;
  const serverIds: number[] = [];
  const topupRefs: string[] = [];

  beforeAll(async () => {
    key = (await createAccount()).apiKey;
    await fund(key, 100);
    for (let i = 0; i < 5; i++) {
      const ordered = await api("/servers", {
        method: "POST",
        key,
        body: { plan: "pup", location: "nl", os: "debian-13" },
      });
      expect(ordered.status).toBe(201);
      serverIds.push(ordered.body.id as number);
    }
    for (let i = 0; i < 4; i++) {
      const created = await api("/topups", { method: "POST", key, body: { amount: 25 + i, coin: "LTC" } });
      expect(created.status).toBe(201);
      topupRefs.push(created.body.ref as string);
    }
  });

  it("pages through servers newest first, each once, and says when there is no more", async () => {
    const pages = await allPages(key, "/servers", "servers", 2);
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(pages.flat().map((server) => server.id)).toEqual([...serverIds].reverse());
    const whole = await api("/servers", { key });
    expect(whole.body.next_cursor).toBeNull();
    expect((whole.body.servers as Listed[]).map((server) => server.id)).toEqual([...serverIds].reverse());
  });

  it("pages through top-ups newest first (the funding top-up last)", async () => {
    const pages = await allPages(key, "/topups", "topups", 3);
    expect(pages.map((page) => page.length)).toEqual([3, 2]);
    const refs = pages.flat().map((topup) => topup.ref);
    expect(refs.slice(0, 4)).toEqual([...topupRefs].reverse());
    expect(new Set(refs).size).toBe(5);
  });

  it("a page that ends exactly at the last item has no cursor", async () => {
    const page = await api("/servers?limit=5", { key });
    expect((page.body.servers as Listed[]).length).toBe(5);
    expect(page.body.next_cursor).toBeNull();
  });

  it("a cursor never reveals another account's items", async () => {
    const first = await api("/servers?limit=1", { key });
    const other = (await createAccount()).apiKey;
    const page = await api(`/servers?cursor=${first.body.next_cursor}`, { key: other });
    expect(page.status).toBe(200);
    expect(page.body.servers).toEqual([]);
    expect(page.body.next_cursor).toBeNull();
  });

  it.each([
    ["/servers?limit=0", "invalid_limit"],
    ["/servers?limit=101", "invalid_limit"],
    ["/servers?limit=ten", "invalid_limit"],
    ["/topups?limit=-3", "invalid_limit"],
    ["/servers?cursor=12", "invalid_cursor"],
    ["/topups?cursor=%FF%FE", "invalid_cursor"],
  ])("%s answers 400 %s with a message that says what to send", async (path, code) => {
    const result = await api(path, { key });
    expect(result.status).toBe(400);
    expect(errorCode(result)).toBe(code);
    expect(result.body.message).toMatch(/send/i);
  });
});
