import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ConsoleSection } from "@/components/servers/sections/console-section";
import { numericId } from "@/lib/dashboard/bff/bff";

export const metadata: Metadata = { title: "Server console" };

/** A server's serial console. */
export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const id = numericId(await params);
  if (!id) notFound();
  return <ConsoleSection id={Number(id)} />;
}
