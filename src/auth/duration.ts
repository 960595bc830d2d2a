import {MemError} from '../errors.js'

const UNIT_MS = {s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000} as const

/** `30d`, `12h`, `90s`, `1h30m`: a positive span of whole seconds, minutes, hours, days or weeks, in milliseconds. */
export function parseDuration(text: string, flag: string): number {
  const trimmed = text.trim()
  const parts = [...trimmed.matchAll(/(\d+)([smhdw])/g)]
  const total = parts.reduce((sum, [, n, unit]) => sum + Number(n) * UNIT_MS[unit as keyof typeof UNIT_MS], 0)
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== trimmed || total <= 0 || !Number.isSafeInteger(total)) {
    throw new MemError(
      'invalid_input',
      `${flag} ${JSON.stringify(text)}: give a length of time such as 90s, 15m, 12h, 30d or 1h30m (s, m, h, d, w)`,
    )
  }
  return total
}
