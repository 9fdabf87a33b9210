import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { SettingsSection } from "@/components/servers/sections/settings-section";
import { numericId } from "@/lib/dashboard/bff/bff";

export const metadata: Metadata = { title: "Server settings" };

/** What changes a server as a whole: reinstall, termination. */
export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const id = numericId(await params);
  if (!id) notFound();
  return <SettingsSection id={Number(id)} />;
}
