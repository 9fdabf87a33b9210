import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { OverviewSection } from "@/components/servers/sections/overview-section";
import { LOCATIONS, OS_IMAGES, PLANS } from "@/lib/catalog/catalog";
import { numericId } from "@/lib/dashboard/bff/bff";

export const metadata: Metadata = { title: "Server" };

/** The catalog's names, looked up here so the overview's first load carries no catalog code. */
const CATALOG_WORDS = {
  plans: Object.fromEntries(PLANS.map((plan) => [plan.id, plan.name])),
  locations: Object.fromEntries(
    LOCATIONS.map((place) => [place.id, { city: place.city, country: place.country }]),
  ),
  os: Object.fromEntries(OS_IMAGES.map((image) => [image.id, image.name])),
};

/** A server's overview (its layout reads the server): facts, root login, renewal, power. */
export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const id = numericId(await params);
  if (!id) notFound();
  return <OverviewSection id={Number(id)} words={CATALOG_WORDS} />;
}
