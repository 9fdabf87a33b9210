/**
 * Loaded into the app by `bench:reads` (NODE_OPTIONS=--require): once a second, appends the event loop's
 * delay over that second (p50, p99 and max, in ms) to LOOP_PROBE_FILE as a JSON line with the time, so the
 * benchmark can tell a route's slow answers caused by the process being busy from those waiting on queries.
 */
const { appendFileSync } = require("node:fs");
const { monitorEventLoopDelay } = require("node:perf_hooks");

const file = process.env.LOOP_PROBE_FILE;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  const ms = (ns) => Math.round(ns / 1e5) / 10;
  setInterval(() => {
    const line = {
      at: Date.now(),
      p50: ms(histogram.percentile(50)),
      p99: ms(histogram.percentile(99)),
      max: ms(histogram.max),
    };
    histogram.reset();
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  }, 1000).unref();
}

// Profiling on demand: the first SIGUSR2 starts the CPU profiler, the next writes the profile to
// LOOP_PROBE_PROFILE (open it in Chrome's DevTools or speedscope).
const profileFile = process.env.LOOP_PROBE_PROFILE;
if (profileFile) {
  const inspector = require("node:inspector");
  const { writeFileSync } = require("node:fs");
  const session = new inspector.Session();
  session.connect();
  let profiling = false;
  process.on("SIGUSR2", () => {
    if (!profiling) {
      session.post("Profiler.enable", () => session.post("Profiler.start"));
      profiling = true;
      return;
    }
    session.post("Profiler.stop", (error, result) => {
      if (!error) writeFileSync(profileFile, JSON.stringify(result.profile));
    });
    profiling = false;
  });
}

// Statement timing on the embedded database: PGlite runs each protocol message synchronously on this
// thread, so a message's time is time the event loop is blocked. Every 5 s, LOOP_PROBE_FILE's sibling
// `queries.json` gets each statement's count, total and longest time, and the messages over 20 ms.
if (file) {
  const { writeFileSync } = require("node:fs");
  const path = require("node:path");
  const stats = new Map();
  const slow = [];
  let current = "(none)";
  const cstring = (bytes, from) => {
    const end = bytes.indexOf(0, from);
    return [Buffer.from(bytes.subarray(from, end)).toString("utf8"), end + 1];
  };
  const statementOf = (bytes) => {
    if (bytes[0] === 0x51) return cstring(bytes, 5)[0];
    if (bytes[0] === 0x50) return cstring(bytes, cstring(bytes, 5)[1])[0];
    return undefined;
  };
  const wrap = (client) => {
    const raw = client.execProtocolRawSync.bind(client);
    client.execProtocolRawSync = (message, ...rest) => {
      const statement = statementOf(message);
      if (statement) current = statement.replace(/\s+/g, " ").slice(0, 160);
      const started = performance.now();
      try {
        return raw(message, ...rest);
      } finally {
        const ms = performance.now() - started;
        const entry = stats.get(current) ?? { count: 0, totalMs: 0, maxMs: 0 };
        entry.count++;
        entry.totalMs += ms;
        entry.maxMs = Math.max(entry.maxMs, ms);
        stats.set(current, entry);
        if (ms > 20 && slow.length < 500) slow.push({ at: Date.now(), ms: Math.round(ms), sql: current });
      }
    };
  };
  const { performance } = require("node:perf_hooks");
  const find = setInterval(async () => {
    const holder = globalThis[Symbol.for("vps.db.handle")];
    if (!holder?.opening) return;
    clearInterval(find);
    const handle = await holder.opening;
    if (handle.kind !== "pglite") return;
    wrap(handle.db.$client);
    setInterval(() => {
      const top = [...stats].sort((a, b) => b[1].totalMs - a[1].totalMs).slice(0, 60);
      writeFileSync(
        path.join(path.dirname(file), "queries.json"),
        JSON.stringify({ top: top.map(([sql, s]) => ({ sql, ...s })), slow }, null, 1),
      );
    }, 5000).unref();
  }, 200);
  find.unref();
}
