import { conflict } from "@/lib/api/errors";
import { PLANS, type Plan } from "@/lib/catalog/catalog";
import type { Size } from "../placement";

/**
 * The size a resize gives and what it leaves open, from the server's size and the plan asked for (sizes as this
 * deployment gives them, after its caps). Memory and vCPUs follow the plan both ways; the disk keeps its size
 * unless `growDisk` asks for the plan's larger one, and never shrinks: a plan whose disk is smaller than the
 * server's cannot take it. Throws the 409 that says why not.
 */
export function resizeTarget(input: {
  current: { plan: string; diskGb: number };
  target: Plan;
  targetSize: Size;
  growDisk: boolean;
}): Size {
  const { current, target, targetSize, growDisk } = input;
  if (current.plan === target.id) {
    throw conflict("already_on_plan", `This server is on ${target.name} already.`);
  }
  if (growDisk && targetSize.diskGb <= current.diskGb) {
    throw conflict(
      "disk_cannot_grow",
      `${target.name}'s disk (${targetSize.diskGb} GB here) is not larger than this server's (${current.diskGb} GB): ` +
        "send grow_disk: false.",
    );
  }
  if (targetSize.diskGb < current.diskGb) {
    throw conflict(
      "disk_too_large",
      `This server's disk (${current.diskGb} GB) is larger than ${target.name}'s (${targetSize.diskGb} GB here), ` +
        "and a disk never shrinks: choose a plan with at least as much disk.",
    );
  }
  return {
    memoryMb: targetSize.memoryMb,
    vcpus: targetSize.vcpus,
    diskGb: growDisk ? targetSize.diskGb : current.diskGb,
  };
}

/**
 * What a disk of `diskGb` leaves open afterwards: the cheapest plan that can take it (plans are listed by price),
 * and whether that is cheaper than `plan`, i.e. whether a later downgrade stays possible.
 */
export function downgradePath(
  plan: Plan,
  diskGb: number,
  diskOf: (plan: Plan) => number,
): { smallestPlan: string; downgradePossible: boolean } {
  const smallest = PLANS.find((candidate) => diskOf(candidate) >= diskGb) ?? plan;
  return {
    smallestPlan: smallest.id,
    downgradePossible: smallest.baseMonthlyCents < plan.baseMonthlyCents,
  };
}

/** The host's shortfall for `more` on top of `used`, in words ("1024 MB of memory (512 MB free)"), if any. */
export function shortfall(host: Size, used: Size, more: Size): string | undefined {
  const missing: string[] = [];
  const free = (total: number, taken: number) => Math.max(0, total - taken);
  if (more.memoryMb > 0 && used.memoryMb + more.memoryMb > host.memoryMb) {
    missing.push(`${more.memoryMb} MB more memory (${free(host.memoryMb, used.memoryMb)} MB free)`);
  }
  if (more.vcpus > 0 && used.vcpus + more.vcpus > host.vcpus) {
    missing.push(`${more.vcpus} more vCPU (${free(host.vcpus, used.vcpus)} free)`);
  }
  if (more.diskGb > 0 && used.diskGb + more.diskGb > host.diskGb) {
    missing.push(`${more.diskGb} GB more disk (${free(host.diskGb, used.diskGb)} GB free)`);
  }
  return missing.length > 0 ? missing.join(", ") : undefined;
}
