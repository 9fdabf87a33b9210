import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { NetworkingSection } from "@/components/servers/sections/networking-section";
import { numericId } from "@/lib/dashboard/bff/bff";

export const metadata: Metadata = { title: "Server networking" };

/** A server's addresses. */
export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const id = numericId(await params);
  if (!id) notFound();
  return <NetworkingSection id={Number(id)} />;
}
