/** Runs once when the server starts: validate the configuration and migrate the database before traffic. */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { guardRequests } = await import("@/lib/http/request-guard");
  guardRequests();
  const { config } = await import("@/lib/config/env");
  const { databaseHandle } = await import("@/lib/db/client");
  const settings = config();
  const handle = await databaseHandle();
  console.log(
    `vps: ${settings.mode} mode, database ${handle.kind}${handle.kind === "pglite" ? ` in ${settings.dataDir}` : ""}`,
  );
  if (settings.mode === "demo" && !settings.x402.rpcUrl) {
    const { startDemoChain } = await import("@/lib/chain/demo-chain");
    try {
      const chain = await startDemoChain();
      console.log(
        `vps: demo chain (chain id ${chain.chainId}) at ${chain.rpcUrl}, test USDC at ${chain.usdc}`,
      );
    } catch (error) {
      // The rest of the demo works without it; x402 top-ups answer 503 until a chain is reachable.
      console.error(`vps: the demo chain did not start: ${(error as Error).message}`);
    }
  }
  const { startBackgroundWork } = await import("@/lib/background/runner");
  startBackgroundWork();
}
