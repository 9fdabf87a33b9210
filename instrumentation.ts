/** Runs once when the server starts: validate the configuration and migrate the database before traffic. */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const started = Date.now();
  // First, so that rate limits count every request under its real socket address.
  const { recordSocketAddresses } = await import("@/lib/rate-limit/client-address");
  recordSocketAddresses();
  const { guardRequests } = await import("@/lib/http/request-guard");
  guardRequests();
  // Every configuration slice at once: a bad variable anywhere stops the start here, with every problem named.
  const { checkSettings } = await import("@/lib/boot/settings");
  checkSettings();
  const { config } = await import("@/lib/config/env");
  const { x402Settings } = await import("@/lib/rails/x402/config");
  const { databaseHandle } = await import("@/lib/db/client");
  const settings = config();
  // The demo chain is another process: start it while the database opens and migrates.
  const demoChain =
    settings.mode === "demo" && !x402Settings().rpcUrl ? startDemoChainLogged() : Promise.resolve();
  const handle = await databaseHandle();
  console.log(
    `vps: ${settings.mode} mode, database ${handle.kind}${handle.kind === "pglite" ? ` in ${settings.dataDir}` : ""} (${Date.now() - started} ms)`,
  );
  await demoChain;
  const { startBackgroundWork } = await import("@/lib/background/runner");
  startBackgroundWork();
  // The console's WebSocket endpoint, which the custom server (scripts/server.mjs) hands upgrades to.
  const { installConsoleGateway } = await import("@/lib/servers/console/gateway");
  installConsoleGateway();
  // The operator pages' request limit, which the request proxy (proxy.ts) applies before each page.
  const { installOperatorPageGate } = await import("@/lib/operator/page-gate");
  installOperatorPageGate();
  console.log(`vps: ready in ${Date.now() - started} ms`);
}

async function startDemoChainLogged() {
  const started = Date.now();
  const { startDemoChain } = await import("@/lib/demo-chain/demo-chain");
  try {
    const chain = await startDemoChain();
    console.log(
      `vps: demo chain (chain id ${chain.chainId}) at ${chain.rpcUrl}, test USDC at ${chain.usdc} (${Date.now() - started} ms)`,
    );
  } catch (error) {
    // The rest of the demo works without it; x402 top-ups answer 503 until a chain is reachable.
    console.error(`vps: the demo chain did not start: ${(error as Error).message}`);
  }
}
