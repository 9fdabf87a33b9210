import "server-only";
import path from "node:path";
import { isAddress } from "viem";
import { z } from "zod";
import { demoValue } from "./demo-secrets";
import { appMode } from "./mode";

/** An environment: variable name -> value (unset and empty both mean "not given"). */
export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/** Where DATA_DIR points when unset. */
export const DEFAULT_DATA_DIR = "./.data";

/** What a slice's `derive` may use besides its own variables. */
export type SliceContext = {
  mode: "demo" | "production";
  /** DATA_DIR, resolved. */
  dataDir: string;
  /**
   * Demo mode only: a value generated once and kept in DATA_DIR (demo-secrets.json), so it survives restarts.
   * `create` runs only when none is kept yet.
   */
  demoValue<T>(name: string, create: () => T): T;
};

export function sliceContext(env: Env): SliceContext {
  const dataDir = path.resolve(optional(env.DATA_DIR) ?? DEFAULT_DATA_DIR);
  const mode = appMode(env);
  return {
    mode,
    dataDir,
    demoValue: (name, create) => {
      if (mode !== "demo") throw new Error(`demo value ${name} asked for in production mode`);
      return demoValue(dataDir, name, create);
    },
  };
}

const optional = (value: string | undefined) => (value === "" ? undefined : value);

/**
 * One domain's block of the configuration: the variables it reads (a zod shape, each variable checked on its
 * own), which of them production requires, and how its settings are made from them. A slice is read from the
 * process environment on first use and kept; the boot check parses every slice at once, so a bad variable
 * anywhere stops the start with every problem named.
 */
export type ConfigSlice<T, Values = Record<string, unknown>> = {
  readonly name: string;
  /** Every variable the slice reads. */
  readonly names: readonly string[];
  /** The checked values when nothing is set: the documentation quotes these, so it cannot drift. */
  defaults(): Values;
  /** The variables production requires when nothing else is set. */
  productionRequired(): readonly string[];
  /** Its variables' own problems (format, range). */
  problems(env: Env): string[];
  /** Variables production requires that are missing ([] in demo mode, or while a variable is malformed). */
  missing(env: Env): string[];
  /** Its settings; throws ConfigError listing every problem. */
  parse(env: Env): T;
  /** The process's settings, from the environment as it was when configuration was first read. */
  read(): T;
};

export function envSlice<Shape extends z.ZodRawShape, T>(spec: {
  name: string;
  shape: Shape;
  /**
   * Variables production mode requires (in the order they are named), given the values read: a slice may
   * excuse one (a facilitator replaces the relayer key).
   */
  requiredInProduction?: (values: z.output<z.ZodObject<Shape>>) => readonly string[];
  /** The settings; throws ConfigError for problems that need several values or the mode to see. */
  derive: (values: z.output<z.ZodObject<Shape>>, context: SliceContext) => T;
}): ConfigSlice<T, z.output<z.ZodObject<Shape>>> {
  const schema = z.object(spec.shape);
  const values = (env: Env) => {
    const parsed = schema.safeParse(env);
    if (!parsed.success) {
      return {
        problems: parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`),
      };
    }
    return { data: parsed.data };
  };
  const problems = (env: Env): string[] => values(env).problems ?? [];
  const missing = (env: Env): string[] => {
    const read = values(env);
    if (!read.data || appMode(env) !== "production" || !spec.requiredInProduction) return [];
    const data = read.data as Record<string, unknown>;
    return spec
      .requiredInProduction(read.data)
      .filter((name) => data[name] === undefined)
      .map((name) => `${name}: required in production mode (APP_MODE=production)`);
  };
  let cached: T | undefined;
  const slice: ConfigSlice<T, z.output<z.ZodObject<Shape>>> = {
    name: spec.name,
    names: Object.keys(spec.shape),
    defaults: () => schema.parse({}),
    productionRequired: () => spec.requiredInProduction?.(schema.parse({})) ?? [],
    problems,
    missing,
    parse(env) {
      const own = problems(env);
      if (own.length > 0) throw new ConfigError(own);
      const absent = missing(env);
      if (absent.length > 0) throw new ConfigError(absent);
      return spec.derive(schema.parse(env), sliceContext(env));
    },
    read() {
      cached ??= slice.parse(processEnv());
      return cached;
    },
  };
  return slice;
}

let snapshot: Env | undefined;

/** process.env as it was when configuration was first read: every slice reads the same environment. */
export function processEnv(): Env {
  snapshot ??= { ...process.env };
  return snapshot;
}

/**
 * Parses several slices from one environment: every variable's own problems first, then every missing
 * production variable, then what each slice's settings refuse, each time all of them in one ConfigError.
 */
export function parseSlices<S extends Record<string, ConfigSlice<unknown, object>>>(
  slices: S,
  env: Env,
): { [K in keyof S]: ReturnType<S[K]["parse"]> } {
  const all = Object.values(slices);
  const own = all.flatMap((slice) => slice.problems(env));
  if (own.length > 0) throw new ConfigError(own);
  const missing = all.flatMap((slice) => slice.missing(env));
  if (missing.length > 0) throw new ConfigError(missing);
  const problems: string[] = [];
  const parsed: Record<string, unknown> = {};
  for (const [key, slice] of Object.entries(slices)) {
    try {
      parsed[key] = slice.parse(env);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return parsed as { [K in keyof S]: ReturnType<S[K]["parse"]> };
}

// ---------------------------------------------------------------------------------------------
// Variable types shared by the slices
// ---------------------------------------------------------------------------------------------

/** An optional text variable: unset and empty are the same. */
export const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === "" ? undefined : value));

export const httpUrl = optionalText.pipe(
  z.url({ protocol: /^https?$/, message: "must be an http(s) URL" }).optional(),
);

/** A WebSocket URL (`ws://`, `wss://`). */
export const wsUrl = optionalText.pipe(
  z.url({ protocol: /^wss?$/, message: "must be a ws(s) URL" }).optional(),
);

/** A 0x-prefixed 20-byte address (a contract, a recipient), in any letter case. */
export const evmAddress = optionalText.pipe(
  z
    .string()
    .refine((value) => isAddress(value, { strict: false }), "must be a 0x-prefixed 20-byte address")
    .optional(),
);
