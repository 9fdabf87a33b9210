/**
 * Measures pages of the production build in Debian's Chromium: the first-load JavaScript as transferred
 * (gzip) and the Lighthouse performance and accessibility scores, each beside its target.
 *
 *   npm run measure:pages                                   # every page, after `npm run build`
 *   npm run measure:pages -- / /dashboard /dashboard/keys   # these pages instead
 *   npm run measure:pages -- --build --runs 3 --desktop --json measure.json --strict
 *
 * --build     runs `npm run build` first (otherwise the existing build in .next is measured)
 * --runs N    audits each page N times and prints the medians (default 1)
 * --desktop   Lighthouse's desktop settings instead of its default mobile emulation and throttling
 * --json F    also writes the results to file F
 * --reports D writes each Lighthouse report (JSON, for the Lighthouse viewer) into folder D
 * --strict    exits 1 when a target is missed or a page could not be measured (otherwise always 0)
 *
 * The app runs from the build (scripts/server.mjs) on a free loopback port and a fresh DATA_DIR (demo mode).
 * Pages under /dashboard are measured signed in: the script signs up through the BFF like the browser does
 * and Lighthouse sends the session cookie with every request. `/dashboard/servers/:server` is the page of a
 * server the script orders for that account (a demo payment funds it) once its usage graphs have data, and
 * `/dashboard/topups/:topup` the page of the top-up that paid for it.
 *
 * Lighthouse is pinned at 12.8.2: Lighthouse 13 needs Node 22, the project runs on Node 20.
 */
import { execSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { launch } from "chrome-launcher";
import lighthouse, { desktopConfig, type Result } from "lighthouse";
import { type RunningApp, startApp } from "../e2e/support/app-server";
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from "../e2e/support/chromium";

/** Stands for the page of a server ordered for the measuring account. */
const SERVER_PAGE = "/dashboard/servers/:server";
/** Stands for the page of a top-up made for the measuring account. */
const TOPUP_PAGE = "/dashboard/topups/:topup";
/** Every page a person visits: the public ones, each dashboard page, and the operator's sign-in. */
const DEFAULT_PAGES = [
  "/",
  "/signin",
  "/signup",
  "/docs/api",
  "/docs/api/servers",
  "/status",
  "/dashboard",
  "/dashboard/order",
  "/dashboard/topups",
  TOPUP_PAGE,
  "/dashboard/servers",
  SERVER_PAGE,
  "/dashboard/keys",
  "/dashboard/security",
  "/dashboard/notifications",
  "/operator",
];
/**
 * The aims: the landing's first-load JS is held tighter than every other page's. The browser suite's budget test
 * (e2e/browser/page-weight.spec.ts) holds today's sizes as ceilings until the pages reach these.
 */
const TARGETS = {
  jsBytes: 160_000,
  landingJsBytes: 140_000,
  performance: 95,
  accessibility: 100,
  totalBlockingMs: 150,
  largestPaintMs: 1_500,
};
const jsBudget = (page: string) => (page === "/" ? TARGETS.landingJsBytes : TARGETS.jsBytes);
const CHROMIUM = CHROMIUM_PATH;

type Measured = {
  page: string;
  /** What Lighthouse audited (checked to be the page itself). */
  url: string;
  /** Script responses, summed: bytes on the wire (gzip body + headers) and decoded bodies. */
  js: {
    transferred: number;
    decoded: number;
    files: number;
    later: number;
    wallet: boolean;
    terminal: boolean;
    charts: Charts;
  };
  performance: number;
  accessibility: number;
  /** Lighthouse's lab figures, in its simulated mobile conditions. */
  totalBlockingMs: number;
  largestPaintMs: number;
  warnings: string[];
};
/** Whether the chart library (uPlot) was requested: in the first load, only after the load event, or not at all. */
type Charts = "first load" | "after load" | "none";
type Outcome = Measured | { page: string; skipped: string } | { page: string; error: string };

const { values: options, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    build: { type: "boolean", default: false },
    runs: { type: "string", default: "1" },
    desktop: { type: "boolean", default: false },
    json: { type: "string" },
    reports: { type: "string" },
    strict: { type: "boolean", default: false },
  },
});
const runs = Number(options.runs);
if (!Number.isInteger(runs) || runs < 1)
  throw new Error(`--runs must be a whole number ≥ 1, not ${options.runs}`);
const pages = positionals.length > 0 ? positionals : DEFAULT_PAGES;
for (const page of pages)
  if (!page.startsWith("/")) throw new Error(`a page is a path like /dashboard: ${page}`);

const needsSession = (page: string) => page === "/dashboard" || page.startsWith("/dashboard/");

/**
 * Signs up as the sign-up page does, with the session cookie and the API key it shows once. The BFF refuses
 * writes without our own Origin, so it is sent.
 */
async function signUp(appUrl: string): Promise<{ cookie: string; apiKey: string }> {
  const response = await fetch(`${appUrl}/bff/sign-up`, { method: "POST", headers: { origin: appUrl } });
  const cookie = response.headers
    .getSetCookie()
    .map((header) => header.split(";")[0] ?? "")
    .find((pair) => pair.startsWith("vps_session="));
  const body = (await response.json()) as { api_key?: string };
  if (response.status !== 201 || !cookie || !body.api_key)
    throw new Error(`sign-up failed: HTTP ${response.status}`);
  return { cookie, apiKey: body.api_key };
}

/** Polls `read` every half second until `done` holds; throws with `what` after `seconds`. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, seconds = 90) {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * Orders a server for the account through the REST API (a demo top-up pays for it) and waits until it runs
 * and its usage graphs have readings, so the page draws them. Returns the server's page.
 */
async function orderServer(appUrl: string, apiKey: string): Promise<{ server: string; topup: string }> {
  const call = async (pathname: string, method = "GET", body?: unknown) => {
    const response = await fetch(`${appUrl}/api/v1${pathname}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const topup = await call("/topups", "POST", { amount: 25, coin: "BTC" });
  if (topup.status !== 201) throw new Error(`demo top-up: HTTP ${topup.status}`);
  await call(`/demo/topups/${topup.body.ref}/pay`, "POST", {});
  await until(
    async () => (await call(`/topups/${topup.body.ref}`)).body.status,
    (s) => s === "completed",
    "the top-up",
  );
  const ordered = await call("/servers", "POST", { plan: "pup", location: "nl", os: "debian-13" });
  if (ordered.status !== 201) throw new Error(`order: HTTP ${ordered.status}`);
  const id = Number(ordered.body.id);
  await until(
    async () => (await call(`/servers/${id}`)).body.status,
    (s) => s === "active",
    "the server",
  );
  await until(
    async () => (await call(`/servers/${id}/metrics?period=24h`)).body.series as { cpu_percent?: unknown[] },
    (series) => series?.cpu_percent?.some((value) => value !== null) ?? false,
    "the server's first usage readings",
  );
  return { server: `/dashboard/servers/${id}`, topup: `/dashboard/topups/${topup.body.ref}` };
}

/** Checks the page answers 200 before spending an audit on it: a 404 is skipped, a redirect is an error. */
async function precheck(
  page: string,
  url: string,
  headers: Record<string, string>,
): Promise<Outcome | undefined> {
  const response = await fetch(url, { headers, redirect: "manual" });
  await response.body?.cancel();
  if (response.status === 404) return { page, skipped: "not found (HTTP 404)" };
  if (response.status >= 300 && response.status < 400) {
    return { page, error: `redirected to ${response.headers.get("location")} (session not accepted?)` };
  }
  if (response.status !== 200) return { page, error: `HTTP ${response.status}` };
  return undefined;
}

/**
 * Sums the script responses of Lighthouse's own page load (network-requests audit), which starts with an empty
 * cache. First-load JS is what the page requests up to its load event; scripts requested later are Next's
 * prefetches for the pages it links to (and any lazily loaded code), reported apart as `later`. transferSize is
 * Chromium's encodedDataLength: the compressed body plus the response headers, as on the wire.
 */
function scriptBytes(lhr: Result): Measured["js"] {
  const details = lhr.audits["network-requests"]?.details;
  const items = details?.type === "table" ? details.items : [];
  // The metrics audit's "observed" timings are on the same clock as networkRequestTime (ms from navigation).
  const metrics = lhr.audits.metrics?.details as { items?: { observedLoad?: number }[] } | undefined;
  const loadAt = metrics?.items?.[0]?.observedLoad ?? Number.POSITIVE_INFINITY;
  const js: Measured["js"] = {
    transferred: 0,
    decoded: 0,
    files: 0,
    later: 0,
    wallet: false,
    terminal: false,
    charts: "none",
  };
  for (const item of items) {
    if (item.resourceType !== "Script") continue;
    const url = String(item.url ?? "");
    js.wallet ||= chunkHolds(url, WALLET_MARK);
    js.terminal ||= chunkHolds(url, TERMINAL_MARK);
    const charts = chunkHolds(url, CHARTS_MARK);
    if (Number(item.networkRequestTime ?? 0) > loadAt) {
      if (charts && js.charts === "none") js.charts = "after load";
      js.later += Number(item.transferSize ?? 0);
      continue;
    }
    if (charts) js.charts = "first load";
    js.transferred += Number(item.transferSize ?? 0);
    js.decoded += Number(item.resourceSize ?? 0);
    js.files += 1;
  }
  return js;
}

/**
 * Wallet code (wagmi): its own error class name survives minification. The wallet must load only on the USDC
 * payment path, so it should be in no page's first load or prefetch.
 */
const WALLET_MARK = "WagmiProviderNotFoundError";
/**
 * The console's terminal (xterm.js): its input element's class name survives minification. It loads only when
 * a console is opened, so it should be in no page's first load or prefetch.
 */
const TERMINAL_MARK = "xterm-helper-textarea";
/**
 * The chart library (uPlot): a class name of its cursor survives minification. The graphs load only on a
 * server's page, after its load event, so the library should be in no page's first load.
 */
const CHARTS_MARK = "u-cursor-pt";

/** Whether a script of the build holds `mark`. */
function chunkHolds(url: string, mark: string): boolean {
  const pathname = new URL(url).pathname;
  if (!pathname.startsWith("/_next/static/")) return false;
  const file = path.join(".next", decodeURIComponent(pathname.slice("/_next/".length)));
  return existsSync(file) && readFileSync(file, "utf8").includes(mark);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

async function audit(url: string, port: number, headers: Record<string, string>): Promise<Result> {
  const result = await lighthouse(
    url,
    {
      port,
      logLevel: "error",
      output: "json",
      onlyCategories: ["performance", "accessibility"],
      // The documented way to audit behind a login: the header goes with every request of the load.
      extraHeaders: headers,
    },
    options.desktop ? desktopConfig : undefined,
  );
  if (!result) throw new Error("Lighthouse returned no result");
  const { lhr } = result;
  if (lhr.runtimeError) throw new Error(`Lighthouse: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
  return lhr;
}

async function measure(page: string, appUrl: string, cookie: string): Promise<Outcome> {
  const url = `${appUrl}${page}`;
  const headers: Record<string, string> = needsSession(page) ? { cookie } : {};
  const problem = await precheck(page, url, headers);
  if (problem) return problem;

  // A fresh browser per page: no cache, cookies or service workers carried over from the previous page.
  const chrome = await launch({
    chromePath: CHROMIUM,
    chromeFlags: ["--headless=new", ...CHROMIUM_FLAGS],
    handleSIGINT: false,
  });
  try {
    const results: Result[] = [];
    for (let run = 0; run < runs; run++) {
      const lhr = await audit(url, chrome.port, headers);
      // The audited page must be the page itself, not where a lost session would send it (/signin).
      const landed = new URL(lhr.finalDisplayedUrl);
      if (landed.pathname !== page)
        return { page, error: `Lighthouse ended on ${landed.pathname}, not ${page}` };
      results.push(lhr);
      if (options.reports) {
        mkdirSync(options.reports, { recursive: true });
        const name = `${page.replace(/^\/$/, "/index").slice(1).replaceAll("/", "_")}-${run + 1}.json`;
        // The report repeats the request headers, session cookie included: leave them out of the file.
        const { extraHeaders: _cookie, ...configSettings } = lhr.configSettings;
        writeFileSync(path.join(options.reports, name), JSON.stringify({ ...lhr, configSettings }));
      }
    }
    const js = results.map(scriptBytes);
    const score = (lhr: Result, category: string) => Math.round((lhr.categories[category]?.score ?? 0) * 100);
    return {
      page,
      url: results[0]?.finalDisplayedUrl ?? url,
      js: {
        transferred: median(js.map((j) => j.transferred)),
        decoded: median(js.map((j) => j.decoded)),
        files: median(js.map((j) => j.files)),
        later: median(js.map((j) => j.later)),
        wallet: js.some((j) => j.wallet),
        terminal: js.some((j) => j.terminal),
        charts: js.some((j) => j.charts === "first load")
          ? "first load"
          : js.some((j) => j.charts === "after load")
            ? "after load"
            : "none",
      },
      performance: Math.round(median(results.map((lhr) => score(lhr, "performance")))),
      accessibility: Math.round(median(results.map((lhr) => score(lhr, "accessibility")))),
      totalBlockingMs: Math.round(
        median(results.map((lhr) => lhr.audits["total-blocking-time"]?.numericValue ?? 0)),
      ),
      largestPaintMs: Math.round(
        median(results.map((lhr) => lhr.audits["largest-contentful-paint"]?.numericValue ?? 0)),
      ),
      warnings: [...new Set(results.flatMap((lhr) => lhr.runWarnings))],
    };
  } finally {
    chrome.kill();
  }
}

const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;
const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
const meets = (m: Measured) => ({
  js: m.js.transferred <= jsBudget(new URL(m.url).pathname),
  tbt: m.totalBlockingMs <= TARGETS.totalBlockingMs,
  lcp: m.largestPaintMs <= TARGETS.largestPaintMs,
  performance: m.performance >= TARGETS.performance,
  accessibility: m.accessibility >= TARGETS.accessibility,
  noWallet: !m.js.wallet && !m.js.terminal,
  noCharts: m.js.charts !== "first load",
});

function report(outcomes: Outcome[]): boolean {
  const width = Math.max(20, ...outcomes.map((o) => o.page.length + 2));
  const row = (
    page: string,
    js: string,
    decoded = "",
    later = "",
    wallet = "",
    charts = "",
    perf = "",
    a11y = "",
    tbt = "",
    lcp = "",
  ) =>
    `${page.padEnd(width)} ${js.padEnd(22)} ${decoded.padEnd(12)} ${later.padEnd(12)} ${wallet.padEnd(10)} ${charts.padEnd(16)} ${tbt.padEnd(13)} ${lcp.padEnd(13)} ${perf.padEnd(9)} ${a11y}`.trimEnd();
  const mode = options.desktop ? "desktop" : "mobile (Lighthouse default emulation and throttling)";
  const runText = runs === 1 ? "1 run" : `median of ${runs} runs`;
  console.log(`\nLighthouse ${mode}, ${runText} per page, ${CHROMIUM}`);
  console.log(
    `targets: first-load JS ≤ ${kB(TARGETS.jsBytes)} gzip (the landing ≤ ${kB(TARGETS.landingJsBytes)}), ` +
      `TBT ≤ ${TARGETS.totalBlockingMs} ms, LCP ≤ ${TARGETS.largestPaintMs} ms, ` +
      `performance ≥ ${TARGETS.performance}, accessibility ≥ ${TARGETS.accessibility}\n`,
  );
  console.log(
    row(
      "page",
      "first-load JS (gzip)",
      "decoded",
      "prefetched",
      "on-demand",
      "charts",
      "perf",
      "a11y",
      "TBT",
      "LCP",
    ),
  );
  let missed = 0;
  let unmeasured = 0;
  for (const outcome of outcomes) {
    if ("skipped" in outcome || "error" in outcome) {
      unmeasured += 1;
      console.log(row(outcome.page, "skipped" in outcome ? outcome.skipped : `error: ${outcome.error}`));
      continue;
    }
    const ok = meets(outcome);
    if (Object.values(ok).includes(false)) missed += 1;
    console.log(
      row(
        outcome.page,
        `${kB(outcome.js.transferred)} ${verdict(ok.js)}`,
        kB(outcome.js.decoded),
        kB(outcome.js.later),
        [outcome.js.wallet && "wallet", outcome.js.terminal && "terminal"].filter(Boolean).join("+") ||
          "none",
        outcome.js.charts === "first load" ? "FIRST LOAD FAIL" : outcome.js.charts,
        `${outcome.performance} ${verdict(ok.performance)}`,
        `${outcome.accessibility} ${verdict(ok.accessibility)}`,
        `${outcome.totalBlockingMs} ms ${verdict(ok.tbt)}`,
        `${outcome.largestPaintMs} ms ${verdict(ok.lcp)}`,
      ),
    );
  }
  console.log(
    "\nfirst-load JS: every script the first visit (empty cache) requests up to the load event, as " +
      "transferred (gzip body + headers); decoded: the same scripts uncompressed; prefetched: scripts " +
      "requested after the load event (Next's prefetch of linked pages), as transferred; on-demand: whether " +
      "any of these scripts is wallet code (wagmi), which only the USDC payment path should load, or the " +
      "console's terminal (xterm.js), which only an opened console should load; charts: whether " +
      "the chart library (uPlot) was requested in the first load (a miss) or after the load event (a server's " +
      "page draws its graphs then); kB = 1000 bytes.",
  );
  for (const outcome of outcomes) {
    if (!("warnings" in outcome)) continue;
    for (const warning of outcome.warnings) console.log(`Lighthouse warning on ${outcome.page}: ${warning}`);
  }
  const allMet = missed === 0 && unmeasured === 0;
  const measured = outcomes.length - unmeasured;
  console.log(
    allMet
      ? `\nALL TARGETS MET on ${measured} page(s).`
      : `\nTARGETS NOT MET: ${missed} of ${measured} measured page(s) missed a target, ` +
          `${unmeasured} page(s) could not be measured.`,
  );
  return allMet;
}

async function main() {
  if (options.build) execSync("npm run build", { stdio: "inherit" });
  let app: RunningApp | undefined;
  // Ctrl-C must not leave the app running: stop it, then exit as interrupted.
  process.once("SIGINT", () => {
    void app?.stop().finally(() => process.exit(130));
  });
  try {
    // Usage read every 2 s, so a new server's graphs have data within seconds.
    app = await startApp({ METRICS_INTERVAL_SECONDS: "2", PROVISION_DELAY_SECONDS: "2" });
    const account = pages.some(needsSession) ? await signUp(app.url) : undefined;
    const cookie = account?.cookie ?? "";
    const ordered =
      account && (pages.includes(SERVER_PAGE) || pages.includes(TOPUP_PAGE))
        ? await orderServer(app.url, account.apiKey)
        : undefined;
    const concrete = (page: string) =>
      page === SERVER_PAGE
        ? (ordered?.server ?? page)
        : page === TOPUP_PAGE
          ? (ordered?.topup ?? page)
          : page;
    const outcomes: Outcome[] = [];
    for (const page of pages.map(concrete)) {
      process.stderr.write(`measuring ${page} ...\n`);
      outcomes.push(
        await measure(page, app.url, cookie).catch((error: Error) => ({ page, error: error.message })),
      );
    }
    const allMet = report(outcomes);
    if (options.json) {
      const json = { targets: TARGETS, runs, desktop: options.desktop, allMet, pages: outcomes };
      writeFileSync(options.json, `${JSON.stringify(json, null, 2)}\n`);
    }
    if (options.strict && !allMet) process.exitCode = 1;
  } finally {
    await app?.stop();
    if (app) rmSync(app.dataDir, { recursive: true, force: true });
  }
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exitCode = 1;
});
