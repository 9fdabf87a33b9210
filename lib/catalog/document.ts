import "server-only";
import { type SharedDocument, sharedDocument } from "@/lib/api/route";
import { serverSettings } from "@/lib/servers/config";
import { provisioner } from "@/lib/servers/provisioner";
import { processWide } from "@/lib/util/process-wide";
import { OS_IMAGES } from "./catalog";
import { catalogBody } from "./present";

/**
 * The catalog as served: the same for everyone, so serialised once with its ETag and served again while
 * what it says stands. Only the images can change under a running process (an OS becomes available when its
 * image is dropped into GUEST_IMAGES_DIR, rescue when its kernel and initrd are): they are looked at on every
 * request, and the document rebuilt when what is there differs.
 */
export function catalogDocument(): SharedDocument {
  const available = new Set(OS_IMAGES.filter((os) => provisioner().imageAvailable(os.id)).map((os) => os.id));
  const rescueAvailable = provisioner().rescueAvailable();
  const signature = `${[...available].join(",")}|${rescueAvailable}`;
  const kept = processWide("catalog.document", () => ({
    signature: "",
    document: undefined as SharedDocument | undefined,
  }));
  if (kept.document && kept.signature === signature) return kept.document;
  const document = sharedDocument(
    catalogBody((os) => available.has(os), {
      snapshotsPerServer: serverSettings().snapshotsPerServer,
      retentionDays: serverSettings().retentionDays,
      rescueAvailable,
    }),
  );
  kept.signature = signature;
  kept.document = document;
  return document;
}
