import { json, methodNotAllowed, publicRoute } from "@/lib/api/route";
import { catalogBody } from "@/lib/catalog/present";
import { serverSettings } from "@/lib/servers/config";
import { provisioner } from "@/lib/servers/provisioner";

// The same for everyone; an OS becomes available when its image is dropped into GUEST_IMAGES_DIR.
export const GET = publicRoute(() =>
  json(
    catalogBody((os) => provisioner().imageAvailable(os), {
      snapshotsPerServer: serverSettings().snapshotsPerServer,
      retentionDays: serverSettings().retentionDays,
      rescueAvailable: provisioner().rescueAvailable(),
    }),
    200,
    { "cache-control": "public, max-age=60" },
  ),
);

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed(["GET"]);
