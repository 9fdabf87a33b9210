import { gzipSync } from "node:zlib";
import { type APIRequestContext, expect, test } from "@playwright/test";
import { api, signUpWithServer } from "../support/dashboard";

/**
 * The first-load JavaScript budget of every page, in gzip kB (1000 bytes): the scripts a page's HTML names,
 * which a phone downloads and runs before the page works, each gzipped here (sizes, unlike timings, are not
 * noisy). Code a page loads later (the wallet, the console's terminal, the charts) is not in its HTML.
 * `npm run measure:pages -- --strict` measures the same pages' timings in Lighthouse.
 */
const LANDING_BUDGET = 140_000;
const PAGE_BUDGET = 160_000;

/** The script URLs a page's HTML loads, in order, each once. */
function scriptsOf(html: string): string[] {
  const sources = [...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((match) => match[1] ?? "");
  return [...new Set(sources.map((source) => source.replaceAll("&amp;", "&")))];
}

async function firstLoadBytes(request: APIRequestContext, page: string, sizes: Map<string, number>) {
  const response = await request.get(page, { maxRedirects: 0 });
  expect(response.status(), `${page} answers itself`).toBe(200);
  const scripts = scriptsOf(await response.text());
  expect(scripts.length, `${page} names its scripts`).toBeGreaterThan(0);
  let total = 0;
  for (const script of scripts) {
    let size = sizes.get(script);
    if (size === undefined) {
      const body = await (await request.get(script)).body();
      size = gzipSync(body, { level: 9 }).length;
      sizes.set(script, size);
    }
    total += size;
  }
  return total;
}

test("every page's first-load JavaScript stays within its budget", async ({ page, request }) => {
  test.setTimeout(90_000);
  const { apiKey, id } = await signUpWithServer(page, request);
  const topups = (await api(request, apiKey, "/topups")).body.topups as { ref: string }[];
  const pages = [
    "/",
    "/signin",
    "/signup",
    "/docs/api",
    "/operator",
    "/dashboard",
    "/dashboard/order",
    "/dashboard/topups",
    `/dashboard/topups/${topups[0]?.ref}`,
    "/dashboard/servers",
    `/dashboard/servers/${id}`,
    "/dashboard/keys",
    "/dashboard/security",
    "/dashboard/notifications",
  ];
  // The page's own request context carries the session cookie the sign-up set.
  const sizes = new Map<string, number>();
  const measured: Record<string, number> = {};
  for (const path of pages) measured[path] = await firstLoadBytes(page.request, path, sizes);
  console.log(
    Object.entries(measured)
      .map(([path, bytes]) => `${path}: ${(bytes / 1000).toFixed(1)} kB`)
      .join("\n"),
  );
  const over = Object.entries(measured).filter(
    ([path, bytes]) => bytes > (path === "/" ? LANDING_BUDGET : PAGE_BUDGET),
  );
  expect(over, "pages over their first-load JS budget (gzip bytes)").toEqual([]);
});

test("the budget check counts what the HTML loads: a page's own scripts, each once", () => {
  const html =
    '<script src="/_next/static/chunks/a.js" async=""></script><script>inline()</script>' +
    '<script src="/_next/static/chunks/b.js?dpl=x&amp;y=1"></script><script src="/_next/static/chunks/a.js"></script>';
  expect(scriptsOf(html)).toEqual(["/_next/static/chunks/a.js", "/_next/static/chunks/b.js?dpl=x&y=1"]);
});
