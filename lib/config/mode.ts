/** Setting any of these means "this is a real deployment": production mode, nothing generated. */
export const PRODUCTION_TRIGGERS = ["SESSION_SECRET", "ENCRYPTION_KEY"] as const;

/**
 * The app's mode from its environment: APP_MODE when given, else production as soon as a production
 * secret is set. Light enough for the request proxy, which must not load the whole configuration.
 */
export function appMode(env: Record<string, string | undefined>): "demo" | "production" {
  if (env.APP_MODE === "demo" || env.APP_MODE === "production") return env.APP_MODE;
  return PRODUCTION_TRIGGERS.some((name) => (env[name] ?? "") !== "") ? "production" : "demo";
}
