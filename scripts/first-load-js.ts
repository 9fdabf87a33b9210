/**
 * First-load JavaScript of pages, as the browser gets it: the scripts each page's HTML loads, gzipped,
 * read from the production build in `.next`. Signs up a fresh demo account to reach signed-in pages.
 *
 *   npx tsx scripts/first-load-js.ts http://127.0.0.1:3000 / /dashboard /dashboard/topups
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";

const [baseUrl = "http://127.0.0.1:3000", ...paths] = process.argv.slice(2);
const pages = paths.length > 0 ? paths : ["/", "/dashboard"];

async function sessionCookie(): Promise<string> {
  const response = await fetch(`${baseUrl}/bff/sign-up`, { method: "POST", headers: { origin: baseUrl } });
  const cookie = response.headers.getSetCookie().find((value) => value.startsWith("vps_session="));
  if (!cookie) throw new Error(`sign-up failed: ${response.status}`);
  return cookie.split(";")[0] ?? "";
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;

const cookie = await sessionCookie();
for (const page of pages) {
  const response = await fetch(`${baseUrl}${page}`, { headers: { cookie }, redirect: "manual" });
  const html = await response.text();
  // Script tags and the chunks the inline RSC payload names for the page's client components; the
  // legacy-browser polyfills (noModule) are not loaded by current browsers.
  const scripts = [
    ...new Set(
      [...html.matchAll(/static\/chunks\/[^"\\]+\.js/g)]
        .map((match) => `/_next/${match[0]}`)
        .filter((src) => !src.includes("/polyfills-")),
    ),
  ];
  let raw = 0;
  let gzip = 0;
  const files: string[] = [];
  for (const src of scripts) {
    if (!src?.startsWith("/_next/static/")) continue;
    const file = readFileSync(path.join(".next", decodeURIComponent(src.replace("/_next/", ""))));
    raw += file.length;
    gzip += gzipSync(file).length;
    if (process.env.VERBOSE) console.log(`  ${src}  ${kb(gzipSync(file).length)}`);
    // wagmi's own error class name survives minification: its presence marks the wallet code.
    if (file.toString("utf8").includes("WagmiProviderNotFoundError")) files.push(path.basename(src));
  }
  const wallet = files;
  console.log(
    `${page.padEnd(24)} ${response.status}  ${String(scripts.length).padStart(2)} scripts  ${kb(gzip).padStart(9)} gzip  ${kb(raw).padStart(9)} raw  wallet code: ${wallet.length > 0 ? wallet.join(",") : "none"}`,
  );
}
