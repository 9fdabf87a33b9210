/** Runs once when the server starts: validate the configuration and migrate the database before traffic. */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { config } = await import("@/lib/config/env");
  const { databaseHandle } = await import("@/lib/db/client");
  const settings = config();
  const handle = await databaseHandle();
  console.log(
    `vps: ${settings.mode} mode, database ${handle.kind}${handle.kind === "pglite" ? ` in ${settings.dataDir}` : ""}`,
  );
}
