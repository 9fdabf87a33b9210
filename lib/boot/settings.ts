import "server-only";
import { ACCOUNT_SETTINGS } from "@/lib/accounts/config";
import { CORE_SETTINGS } from "@/lib/config/env";
import { ConfigError, type ConfigSlice, type Env, parseSlices, processEnv } from "@/lib/config/slice";
import { NOTIFICATION_SETTINGS } from "@/lib/notifications/config";
import { OPERATOR_SETTINGS } from "@/lib/operator/config";
import { DEPOSIT_KEY_SETTINGS } from "@/lib/rails/addresses";
import { DEPOSIT_SETTINGS } from "@/lib/rails/deposits/config";
import { EVM_SETTINGS } from "@/lib/rails/evm/config";
import { MONERO_SETTINGS } from "@/lib/rails/monero/config";
import { RATE_SETTINGS } from "@/lib/rails/rates";
import { TRON_SETTINGS } from "@/lib/rails/tron/config";
import { UTXO_SETTINGS } from "@/lib/rails/utxo/config";
import { X402_SETTINGS } from "@/lib/rails/x402/config";
import { RATE_LIMIT_SETTINGS } from "@/lib/rate-limit/config";
import { SERVER_SETTINGS } from "@/lib/servers/config";
import { CONSOLE_SETTINGS } from "@/lib/servers/console/config";
import { RDNS_SETTINGS } from "@/lib/servers/network/config";
import { STATUS_SETTINGS } from "@/lib/status/config";
import { TOPUP_SETTINGS } from "@/lib/topups/config";

/**
 * Every block of the configuration, each owned by its domain: the one place that knows them all, above the
 * domains, so that start-up checks the whole environment at once and the documentation reads every default.
 */
export const SETTINGS = {
  core: CORE_SETTINGS,
  rateLimits: RATE_LIMIT_SETTINGS,
  accounts: ACCOUNT_SETTINGS,
  x402: X402_SETTINGS,
  keys: DEPOSIT_KEY_SETTINGS,
  deposits: DEPOSIT_SETTINGS,
  rates: RATE_SETTINGS,
  topups: TOPUP_SETTINGS,
  utxo: UTXO_SETTINGS,
  evm: EVM_SETTINGS,
  tron: TRON_SETTINGS,
  monero: MONERO_SETTINGS,
  servers: SERVER_SETTINGS,
  console: CONSOLE_SETTINGS,
  rdns: RDNS_SETTINGS,
  notifications: NOTIFICATION_SETTINGS,
  operator: OPERATOR_SETTINGS,
  status: STATUS_SETTINGS,
} satisfies Record<string, ConfigSlice<unknown, object>>;

/** Parses an environment into every slice's settings; throws ConfigError listing every bad value. */
export function parseSettings(env: Env) {
  const settings = parseSlices(SETTINGS, env);
  // A node told to send block notices needs the listener they go to (another slice's).
  const notifying = Object.entries({ BTC_PUSH: settings.utxo.bitcoin, LTC_PUSH: settings.utxo.litecoin })
    .filter(([, node]) => node.push === "notify")
    .map(([name]) => name);
  if (notifying.length > 0 && !settings.deposits.notify) {
    throw new ConfigError(
      notifying.map((name) => `${name}=notify: needs DEPOSIT_NOTIFY_LISTEN and DEPOSIT_NOTIFY_SECRET`),
    );
  }
  return settings;
}

/** Checks the process environment at start-up (from instrumentation): throws ConfigError naming each problem. */
export function checkSettings(): void {
  parseSettings(processEnv());
}

const slices: ConfigSlice<unknown, object>[] = Object.values(SETTINGS);

/** Every variable the configuration reads. */
export const ENV_NAMES: readonly string[] = slices.flatMap((slice) => slice.names);

/** Variables a production deployment must set; in demo mode they are generated or simulated. */
export const PRODUCTION_REQUIRED: readonly string[] = slices.flatMap((slice) => slice.productionRequired());

/** The settings' values when unset, by variable: the documentation quotes these, so it cannot drift. */
export function settingDefaults(): Defaults {
  return Object.assign({}, ...slices.map((slice) => slice.defaults()));
}

type Slice = (typeof SETTINGS)[keyof typeof SETTINGS];
type ValuesOf<S> = S extends ConfigSlice<unknown, infer V> ? V : never;
type Intersection<U> = (U extends unknown ? (all: U) => void : never) extends (all: infer I) => void
  ? I
  : never;
/** Every variable's checked default, typed as its slice reads it. */
type Defaults = Intersection<ValuesOf<Slice>>;
