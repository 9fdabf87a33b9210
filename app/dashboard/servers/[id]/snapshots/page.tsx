import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { SnapshotsSection } from "@/components/servers/sections/snapshots-section";
import { numericId } from "@/lib/dashboard/bff/bff";

export const metadata: Metadata = { title: "Server snapshots" };

/** A server's snapshots and rescue mode. */
export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const id = numericId(await params);
  if (!id) notFound();
  return <SnapshotsSection id={Number(id)} />;
}
