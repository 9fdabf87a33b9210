/**
 * The catalog: plans, locations, OS images and the pricing rule; the payment options it lists are the coin
 * registry's (`@/lib/rails/registry`), imported from there so that a page pricing a plan loads no coin facts.
 * This module is the single owner of prices: the API, the order path and the dashboard all call `priceFor`.
 */
import type { Cycle } from "@/lib/db/types";
import { applyBasisPoints, type Cents } from "@/lib/util/cents";

export type Plan = {
  id: string;
  name: string;
  vcpu: number;
  ramMb: number;
  diskGb: number;
  trafficTb: number;
  portMbps: number;
  baseMonthlyCents: Cents;
};

export type Location = {
  id: string;
  city: string;
  country: string;
  countryCode: string;
  /** Price modifier in basis points: 10000 = 1.00x. Integers keep the price rule exact. */
  modifierBp: number;
};

export type OsImage = { id: string; name: string; family: string; version: string };

export type { Cycle };

export const CYCLES: readonly Cycle[] = ["monthly", "annual"];
export const ANNUAL_MONTHS_CHARGED = 10;

export const PLANS: readonly Plan[] = [
  {
    id: "pup",
    name: "Pup",
    vcpu: 1,
    ramMb: 1024,
    diskGb: 20,
    trafficTb: 1,
    portMbps: 1000,
    baseMonthlyCents: 400,
  },
  {
    id: "fox",
    name: "Fox",
    vcpu: 1,
    ramMb: 2048,
    diskGb: 40,
    trafficTb: 2,
    portMbps: 1000,
    baseMonthlyCents: 650,
  },
  {
    id: "jackal",
    name: "Jackal",
    vcpu: 2,
    ramMb: 2048,
    diskGb: 60,
    trafficTb: 3,
    portMbps: 1000,
    baseMonthlyCents: 900,
  },
  {
    id: "coyote",
    name: "Coyote",
    vcpu: 2,
    ramMb: 4096,
    diskGb: 80,
    trafficTb: 4,
    portMbps: 1000,
    baseMonthlyCents: 1400,
  },
  {
    id: "dingo",
    name: "Dingo",
    vcpu: 3,
    ramMb: 6144,
    diskGb: 120,
    trafficTb: 5,
    portMbps: 1000,
    baseMonthlyCents: 2100,
  },
  {
    id: "husky",
    name: "Husky",
    vcpu: 4,
    ramMb: 8192,
    diskGb: 160,
    trafficTb: 6,
    portMbps: 1000,
    baseMonthlyCents: 2800,
  },
  {
    id: "wolf",
    name: "Wolf",
    vcpu: 6,
    ramMb: 12288,
    diskGb: 240,
    trafficTb: 8,
    portMbps: 2500,
    baseMonthlyCents: 4200,
  },
  {
    id: "warg",
    name: "Warg",
    vcpu: 8,
    ramMb: 16384,
    diskGb: 320,
    trafficTb: 10,
    portMbps: 2500,
    baseMonthlyCents: 5600,
  },
  {
    id: "direwolf",
    name: "Direwolf",
    vcpu: 12,
    ramMb: 32768,
    diskGb: 640,
    trafficTb: 15,
    portMbps: 10000,
    baseMonthlyCents: 9900,
  },
  {
    id: "fenrir",
    name: "Fenrir",
    vcpu: 16,
    ramMb: 65536,
    diskGb: 1280,
    trafficTb: 20,
    portMbps: 10000,
    baseMonthlyCents: 18900,
  },
];

export const LOCATIONS: readonly Location[] = [
  { id: "nl", city: "Amsterdam", country: "Netherlands", countryCode: "NL", modifierBp: 10000 },
  { id: "fr", city: "Paris", country: "France", countryCode: "FR", modifierBp: 10000 },
  { id: "ro", city: "Bucharest", country: "Romania", countryCode: "RO", modifierBp: 9000 },
  { id: "bg", city: "Sofia", country: "Bulgaria", countryCode: "BG", modifierBp: 9000 },
  { id: "se", city: "Stockholm", country: "Sweden", countryCode: "SE", modifierBp: 11000 },
  { id: "is", city: "Reykjavik", country: "Iceland", countryCode: "IS", modifierBp: 12500 },
  { id: "ch", city: "Zurich", country: "Switzerland", countryCode: "CH", modifierBp: 13500 },
  { id: "my", city: "Kuala Lumpur", country: "Malaysia", countryCode: "MY", modifierBp: 11500 },
];

export const OS_IMAGES: readonly OsImage[] = [
  { id: "debian-13", name: "Debian 13 (Trixie)", family: "debian", version: "13" },
  { id: "debian-12", name: "Debian 12 (Bookworm)", family: "debian", version: "12" },
  { id: "ubuntu-24.04", name: "Ubuntu 24.04 LTS", family: "ubuntu", version: "24.04" },
  { id: "ubuntu-22.04", name: "Ubuntu 22.04 LTS", family: "ubuntu", version: "22.04" },
  { id: "almalinux-10", name: "AlmaLinux 10", family: "almalinux", version: "10" },
  { id: "almalinux-9", name: "AlmaLinux 9", family: "almalinux", version: "9" },
  { id: "rockylinux-10", name: "Rocky Linux 10", family: "rockylinux", version: "10" },
  { id: "rockylinux-9", name: "Rocky Linux 9", family: "rockylinux", version: "9" },
  { id: "fedora-43", name: "Fedora 43", family: "fedora", version: "43" },
  { id: "alpine-3.22", name: "Alpine Linux 3.22", family: "alpine", version: "3.22" },
  { id: "archlinux", name: "Arch Linux", family: "arch", version: "rolling" },
  { id: "freebsd-14", name: "FreeBSD 14", family: "freebsd", version: "14" },
];

/**
 * How a plan's monthly traffic allowance (`trafficTb`, decimal terabytes) is counted: outbound bytes only,
 * per calendar month of the paid period (monthly boundaries at the expiry date's day and time, so an annual
 * cycle has twelve). At 80 % and 100 % the customer is told; past 100 % the network is slowed to
 * `slowedMbps` both ways until the next period begins. A server is never suspended for traffic.
 */
export const TRAFFIC_POLICY = {
  counted: "outbound",
  noticePercents: [80, 100],
  slowedMbps: 10,
} as const;

const planById = new Map(PLANS.map((plan) => [plan.id, plan]));
const locationById = new Map(LOCATIONS.map((location) => [location.id, location]));
const osById = new Map(OS_IMAGES.map((os) => [os.id, os]));

export const findPlan = (id: string): Plan | undefined => planById.get(id);
export const findLocation = (id: string): Location | undefined => locationById.get(id);
export const findOs = (id: string): OsImage | undefined => osById.get(id);

/** Monthly price = plan base x location modifier, rounded half up to the cent. */
export function monthlyPriceCents(plan: Plan, location: Location): Cents {
  return applyBasisPoints(plan.baseMonthlyCents, location.modifierBp);
}

/** The price of one billing cycle: monthly, or annual = monthly x 10 (two months free). */
export function priceFor(plan: Plan, location: Location, cycle: Cycle): Cents {
  const monthly = monthlyPriceCents(plan, location);
  return cycle === "annual" ? monthly * ANNUAL_MONTHS_CHARGED : monthly;
}

/** What a customer saves per year by paying annually instead of twelve monthly cycles. */
export function annualSavingCents(plan: Plan, location: Location): Cents {
  return monthlyPriceCents(plan, location) * 12 - priceFor(plan, location, "annual");
}
