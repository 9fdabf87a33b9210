/** Starts e2e/support/x402-facilitator.mjs as its own process and stops it again. */
import { spawn } from "node:child_process";
import path from "node:path";

export type RunningFacilitator = {
  url: string;
  stats: () => Promise<{ verify: number; settle: number; supported: number; unauthorized: number }>;
  stop: () => Promise<void>;
};

export async function startFacilitator(env: {
  RPC_URL: string;
  PRIVATE_KEY: string;
  TOKEN: string;
}): Promise<RunningFacilitator> {
  const script = path.join(import.meta.dirname, "x402-facilitator.mjs");
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`facilitator did not start: ${output}`)), 20_000);
    child.stderr?.on("data", (chunk) => {
      output += chunk;
    });
    child.stdout?.on("data", (chunk) => {
      output += chunk;
      const match = /listening (\S+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`facilitator exited with ${code}: ${output}`));
    });
  });
  return {
    url,
    stats: async () => (await fetch(`${url}/stats`)).json(),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}
