/**
 * Every route and page of the production build loads when it is the first one a process loads, as after a
 * restart. Modules that import each other in a loop load in the order the first route reaches them, and a
 * constant one of them uses as it loads may not be set yet: ten server routes once answered 500 ("Cannot
 * access before initialization") when one of them was the first request a restarted instance served, until
 * another route had loaded the same modules. Each route is loaded in a Node process of its own.
 */
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const run = promisify(execFile);
const BUILD = path.resolve(".next/server/app");

/** A route's module, loaded the way the server loads it on its first request. */
const LOAD = `
const { routeModule } = require(process.argv[1]);
Promise.resolve(routeModule.ensureUserland?.()).then(
  () => process.exit(0),
  (error) => { console.log(error.message); process.exit(1); },
);`;

function builtRoutes(dir = BUILD): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return builtRoutes(full);
    return entry.name === "route.js" || entry.name === "page.js" ? [full] : [];
  });
}

// Nothing here touches a database: once is enough.
it.skipIf(process.env.API_TEST_DB === "postgres")(
  "every route and page loads first in a fresh process",
  async () => {
    const routes = builtRoutes();
    expect(routes.length).toBeGreaterThan(80);
    const failures: string[] = [];
    // Two at a time, on two cores.
    const queue = [...routes];
    const worker = async () => {
      for (let file = queue.shift(); file; file = queue.shift()) {
        try {
          await run(process.execPath, ["-e", LOAD, file], { timeout: 30_000 });
        } catch (error) {
          const output = (error as { stdout?: string }).stdout?.trim() || String(error);
          failures.push(`${path.relative(BUILD, file)}: ${output}`);
        }
      }
    };
    await Promise.all([worker(), worker()]);
    expect(failures).toEqual([]);
  },
  300_000,
);
