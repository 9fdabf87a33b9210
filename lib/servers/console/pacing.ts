/**
 * A token bucket for a console's input: `burst` bytes at once (a paste), then `perSecond`. Pure but for the
 * clock it is given.
 */
export class InputPacer {
  private tokens: number;
  private at: number;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.tokens = burst;
    this.at = clock();
  }

  /** Takes `bytes` now and returns 0, or returns how many milliseconds to wait before they may pass. */
  take(bytes: number): number {
    const now = this.clock();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) / 1000) * this.perSecond);
    this.at = now;
    // A frame larger than the burst passes once the bucket is full, so nothing waits forever.
    const needed = Math.min(bytes, this.burst);
    if (this.tokens >= needed) {
      this.tokens -= needed;
      return 0;
    }
    return Math.ceil(((needed - this.tokens) / this.perSecond) * 1000);
  }
}
