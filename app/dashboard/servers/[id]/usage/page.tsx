import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { UsageSection } from "@/components/servers/sections/usage-section";
import { numericId } from "@/lib/dashboard/bff/bff";

export const metadata: Metadata = { title: "Server usage" };

/** A server's traffic and usage graphs. */
export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const id = numericId(await params);
  if (!id) notFound();
  return <UsageSection id={Number(id)} />;
}
