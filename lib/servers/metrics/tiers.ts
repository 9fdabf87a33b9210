/** How usage is kept: three resolutions, each for as long as the periods it serves need it. Pure. */

export type Tier = { stepSeconds: number; keepSeconds: number };

const HOUR = 3_600;
const DAY = 24 * HOUR;

/**
 * Every reading adds into one row per tier (an upsert that sums), so a coarser tier is always the sum of the
 * finer ones without a separate roll-up job. Rows older than `keepSeconds` are deleted.
 */
export const TIERS: readonly Tier[] = [
  { stepSeconds: 60, keepSeconds: 2 * HOUR },
  { stepSeconds: 300, keepSeconds: 25 * HOUR },
  { stepSeconds: HOUR, keepSeconds: 32 * DAY },
];

export const METRIC_PERIODS = ["1h", "24h", "7d", "30d"] as const;
export type MetricPeriod = (typeof METRIC_PERIODS)[number];

/** What each period of GET /servers/{id}/metrics shows: its length and the tier it reads. */
export const PERIOD_VIEWS: Record<MetricPeriod, { seconds: number; stepSeconds: number }> = {
  "1h": { seconds: HOUR, stepSeconds: 60 },
  "24h": { seconds: DAY, stepSeconds: 300 },
  "7d": { seconds: 7 * DAY, stepSeconds: HOUR },
  "30d": { seconds: 30 * DAY, stepSeconds: HOUR },
};

/** The most rows one server ever has: each tier's kept buckets, the current one and one not yet pruned. */
export const ROWS_PER_SERVER_BOUND = TIERS.reduce(
  (sum, tier) => sum + Math.ceil(tier.keepSeconds / tier.stepSeconds) + 2,
  0,
);

/** The start of the `stepSeconds` bucket holding `at`. */
export const bucketStart = (at: Date, stepSeconds: number) =>
  new Date(Math.floor(at.getTime() / (stepSeconds * 1000)) * stepSeconds * 1000);
