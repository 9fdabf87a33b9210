import type { CatalogBody } from "@/lib/api/schemas/catalog";
import { COINS, DEFAULT_COIN } from "@/lib/rails/registry";
import { centsToUsd } from "@/lib/util/cents";
import {
  ANNUAL_MONTHS_CHARGED,
  CYCLES,
  LOCATIONS,
  monthlyPriceCents,
  OS_IMAGES,
  PLANS,
  priceFor,
  TRAFFIC_POLICY,
} from "./catalog";
import { TOPUP_MAX_CENTS, TOPUP_MIN_CENTS } from "./topup-limits";

/** What this deployment offers around servers: snapshots kept per server, retention, rescue mode. */
export type ServerExtras = { snapshotsPerServer: number; retentionDays: number; rescueAvailable: boolean };

/** The public catalog document, in the API's field layout; `available` says which OS can be installed. */
export function catalogBody(available: (os: string) => boolean, extras: ServerExtras): CatalogBody {
  return {
    currency: "USD",
    plans: PLANS.map((plan, index) => ({
      id: plan.id,
      name: plan.name,
      tier: index + 1,
      vcpu: plan.vcpu,
      ram_mb: plan.ramMb,
      disk_gb: plan.diskGb,
      disk_type: "nvme",
      traffic_tb: plan.trafficTb,
      port_mbps: plan.portMbps,
      ipv4: 1,
      ipv6: "/64",
      virtualization: "kvm",
      base_price_monthly_usd: centsToUsd(plan.baseMonthlyCents),
    })),
    locations: LOCATIONS.map((location) => ({
      id: location.id,
      city: location.city,
      country: location.country,
      country_code: location.countryCode,
      price_modifier: location.modifierBp / 10000,
    })),
    os: OS_IMAGES.map((os) => ({ ...os, available: available(os.id) })),
    pricing: {
      rule: "monthly = plan base price x location modifier; annual = monthly x 10",
      cycles: [...CYCLES],
      annual_months_charged: ANNUAL_MONTHS_CHARGED,
      rounding: "monthly prices are rounded half up to the cent",
      prices: PLANS.flatMap((plan) =>
        LOCATIONS.map((location) => ({
          plan: plan.id,
          location: location.id,
          monthly_usd: centsToUsd(monthlyPriceCents(plan, location)),
          annual_usd: centsToUsd(priceFor(plan, location, "annual")),
        })),
      ),
    },
    snapshots: {
      per_server: extras.snapshotsPerServer,
      price_usd: 0,
      kept_after_termination_days: extras.retentionDays,
      rescue_available: extras.rescueAvailable,
    },
    traffic: {
      counted: TRAFFIC_POLICY.counted,
      period:
        "each calendar month of the paid period, from the day and time it began (an annual cycle has twelve)",
      notices_percent: [...TRAFFIC_POLICY.noticePercents],
      over_allowance_mbps: TRAFFIC_POLICY.slowedMbps,
      over_allowance: `slowed to ${TRAFFIC_POLICY.slowedMbps} Mbit/s both ways until the next period begins; never suspended`,
    },
    payment: {
      currency: "USD",
      topup_min_usd: centsToUsd(TOPUP_MIN_CENTS),
      topup_max_usd: centsToUsd(TOPUP_MAX_CENTS),
      default_coin: DEFAULT_COIN,
      coins: COINS.map(({ code, name, network, method }) => ({ code, name, network, method })),
      refundable: false,
    },
  };
}
