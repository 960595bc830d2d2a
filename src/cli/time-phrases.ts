import {MemError} from '../errors.js'
import {isIsoDateOrTime} from '../ops/time-range.js'

/**
 * Turns a --since/--until value into the ISO time the operations take. ISO dates and times pass
 * through unchanged (they mean the same on every surface); anything else is read as a phrase
 * such as "yesterday", "last week" or "3 days ago". A phrase that names a day but no time of
 * day means the start of that day, here, in local time. chrono-node (English only) is imported only
 * when a phrase is given: it costs more to load than the rest of a search.
 */
export async function resolveTimePhrase(value: string | undefined, flag: string, now: Date = new Date()): Promise<string | undefined> {
  if (value === undefined) return undefined
  const text = value.trim()
  if (isIsoDateOrTime(text)) return text
  const chrono = await import('chrono-node/en')
  const [result] = chrono.parse(text, now)
  if (!result || result.index !== 0 || result.text.length !== text.length) {
    throw new MemError('invalid_input', `${flag} ${JSON.stringify(value)} is not a date: use an ISO date such as 2026-05-01, or a phrase such as "yesterday", "last week" or "3 days ago"`)
  }
  const date = result.start.date()
  if (!result.start.isCertain('hour')) date.setHours(0, 0, 0, 0)
  return date.toISOString()
}
