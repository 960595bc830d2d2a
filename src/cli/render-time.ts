const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600_000],
  ['month', 30 * 24 * 3600_000],
  ['week', 7 * 24 * 3600_000],
  ['day', 24 * 3600_000],
  ['hour', 3600_000],
  ['minute', 60_000],
]

// Made on first use: creating an Intl formatter loads locale data, which costs a cold
// `mem search --json` (which never shows a time) more than the search itself.
let format: Intl.RelativeTimeFormat | undefined

/** "just now", "5 minutes ago", "yesterday", "3 days ago", "last month"; an unreadable time is shown as given. */
export function relativeTime(iso: string, now: Date): string {
  const time = Date.parse(iso)
  if (Number.isNaN(time)) return iso
  const elapsed = now.getTime() - time
  if (Math.abs(elapsed) < 60_000) return 'just now'
  for (const [unit, ms] of UNITS) {
    if (Math.abs(elapsed) >= ms)
      return (format ??= new Intl.RelativeTimeFormat('en', {numeric: 'auto'})).format(-Math.trunc(elapsed / ms), unit)
  }
  return 'just now'
}
