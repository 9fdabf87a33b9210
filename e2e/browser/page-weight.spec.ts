import { gzipSync } from "node:zlib";
import { type APIRequestContext, expect, type Request, test } from "@playwright/test";
import { api, fundBalance, signUp, signUpWithServer } from "../support/dashboard";

/**
 * The first-load JavaScript budget of every page, in gzip kB (1000 bytes): the scripts a page's HTML names,
 * which a phone downloads and runs before the page works, each gzipped here (sizes, unlike timings, are not
 * noisy). Code a page loads later (the wallet, the console's terminal, the charts) is not in its HTML.
 * `npm run measure:pages -- --strict` measures the same pages' timings in Lighthouse.
 */
/**
 * The landing is held at 140 kB, every other page at 160 kB. React DOM and Next's router alone are about 134 kB
 * of every page; the dashboard adds its layout and its query cache, TanStack Query (about 12 kB). What only one
 * interaction uses loads later: the wallet, the console's terminal, the charts; a server's page is in sections,
 * each a page with its own panels (docs/performance.md, Measuring the pages).
 */
const LANDING_BUDGET = 140_000;
const PAGE_BUDGET = 160_000;

/**
 * The scripts a page's first load runs, each once: those its HTML names in `<script src>`, and the chunks of
 * its client components, which Next names in the page's RSC payload (inline in the same HTML) and loads while
 * hydrating. `noModule` polyfills are for old browsers only; code loaded on demand is named in neither.
 */
function scriptsOf(html: string): string[] {
  const legacy = new Set(
    [...html.matchAll(/<script\b[^>]*\bnoModule\b[^>]*>/gi)].map(
      (tag) => /\bsrc="([^"]+)"/.exec(tag[0])?.[1],
    ),
  );
  const named = [...html.matchAll(/static\/chunks\/[\w\-./~%[\]]+?\.js/g)].map(
    (match) => `/_next/${match[0]}`,
  );
  return [...new Set(named)].filter((script) => !legacy.has(script));
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
    "/docs/api/servers",
    "/status",
    "/operator",
    "/dashboard",
    "/dashboard/order",
    "/dashboard/topups",
    `/dashboard/topups/${topups[0]?.ref}`,
    "/dashboard/servers",
    // A server's page, section by section: each loads only its own panels.
    ...["", "/console", "/usage", "/snapshots", "/networking", "/settings"].map(
      (section) => `/dashboard/servers/${id}${section}`,
    ),
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

test("a dashboard page comes with its data: it asks for nothing more as it loads, and prefetches no other page", async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const { apiKey } = await signUp(page);
  // A completed top-up, so the history and the balance have something to show; no server, so no list polls.
  await fundBalance(request, apiKey, 25);
  for (const path of [
    "/dashboard",
    "/dashboard/topups",
    "/dashboard/servers",
    "/dashboard/order",
    "/dashboard/keys",
    "/dashboard/security",
    "/dashboard/notifications",
  ]) {
    const asked: string[] = [];
    const record = (sent: Request) => {
      const url = new URL(sent.url());
      if (url.pathname.startsWith("/_next/static/")) return;
      asked.push(
        `${sent.method()} ${url.pathname}${sent.headers()["next-router-prefetch"] ? " (prefetch)" : ""}`,
      );
    };
    page.on("request", record);
    await page.goto(path, { waitUntil: "load" });
    await page.waitForTimeout(1_500);
    page.off("request", record);
    expect(asked, `what ${path} asked for as it loaded`).toEqual([`GET ${path}`]);
  }
});

test("the budget check counts what the first load runs: script tags and the payload's chunks, each once", () => {
  const html =
    '<script src="/_next/static/chunks/a.js" async=""></script><script>inline()</script>' +
    '<script src="/_next/static/chunks/polyfills.js" noModule=""></script>' +
    '<script>self.__next_f.push([1,"3:I[123,[\\"static/chunks/app/page-b.js\\",\\"static/chunks/a.js\\"]]"])</script>';
  expect(scriptsOf(html)).toEqual(["/_next/static/chunks/a.js", "/_next/static/chunks/app/page-b.js"]);
});
