/**
 * A token bucket per token name: `perMinute` calls a minute on average, bursts of up to
 * `burst`. A caller over its share waits (429 with Retry-After); others are not slowed.
 *
 * Time is the monotonic clock, not the wall clock: a wall clock stepped back (NTP, a restored
 * VM, a person fixing the time) would make the elapsed time negative, drain every bucket by
 * the size of the step and lock out each token in use for as long.
 */
export class RateLimiter {
  private buckets = new Map<string, {tokens: number; at: number}>()

  constructor(
    private readonly perMinute: number,
    private readonly burst: number,
    /** Milliseconds from any fixed origin, never going back. */
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** 0 when the call may go ahead now, else the seconds to wait before the next one. */
  take(key: string): number {
    const now = this.clock()
    const rate = this.perMinute / 60_000
    const bucket = this.buckets.get(key) ?? {tokens: this.burst, at: now}
    bucket.tokens = Math.min(this.burst, bucket.tokens + (now - bucket.at) * rate)
    bucket.at = now
    this.buckets.set(key, bucket)
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1
      return 0
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / rate / 1000))
  }
}
