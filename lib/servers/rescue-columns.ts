/**
 * The columns of a server out of rescue mode: its state, and its temporary login gone. A module that imports
 * nothing: billing spreads it into a constant as it loads, and rescue.ts reaches billing through the job
 * queue, so defined in rescue.ts it was not set yet when a route loaded rescue.ts first (the route then
 * failed with "Cannot access before initialization" until another route had loaded them).
 */
export const NOT_IN_RESCUE = {
  rescueState: null,
  rescueSince: null,
  rescuePasswordEnc: null,
  rescueHostKeyFingerprint: null,
} as const;
