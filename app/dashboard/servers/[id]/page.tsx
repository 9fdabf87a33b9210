import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { OverviewSection } from "@/components/servers/sections/overview-section";
import { numericId } from "@/lib/dashboard/bff/bff";

export const metadata: Metadata = { title: "Server" };

/** A server's overview (its layout reads the server): facts, root login, renewal, power. */
export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const id = numericId(await params);
  if (!id) notFound();
  return <OverviewSection id={Number(id)} />;
}
