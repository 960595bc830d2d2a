import {MemError} from '../errors.js'
import {impossibleDate, isIsoDateOrTime, looksIsoDateOrTime} from '../ops/time-range.js'

const DAY_MS = 24 * 60 * 60 * 1000
/** Words that ask for a date ahead on purpose: "next friday", "this friday", "in march". */
const AHEAD = /\b(next|this|coming|in)\b/i

/**
 * Turns a --since/--until value into the ISO time the operations take. ISO dates and times pass
 * through unchanged (they mean the same on every surface); anything else is read as a phrase
 * such as "yesterday", "last week" or "3 days ago". A phrase that names a day but no time of
 * day means the start of that day, here, in local time. A bare weekday or month ("friday",
 * "march 5") means the most recent past one: a filter on what was saved looks back. chrono-node (English only) is imported only
 * when a phrase is given: it costs more to load than the rest of a search.
 */
export async function resolveTimePhrase(
  value: string | undefined,
  flag: string,
  now: Date = new Date(),
): Promise<string | undefined> {
  if (value === undefined) return undefined
  const text = value.trim()
  if (isIsoDateOrTime(text)) return text
  if (looksIsoDateOrTime(text))
    throw new MemError(
      'invalid_input',
      `${flag} ${JSON.stringify(value)} is not a real date: ${impossibleDate(text) ?? 'the calendar has no such day'}`,
    )
  const chrono = await import('chrono-node/en')
  const [result] = chrono.parse(text, now)
  if (!result || result.index !== 0 || result.text.length !== text.length) {
    throw new MemError(
      'invalid_input',
      `${flag} ${JSON.stringify(value)} is not a date: use an ISO date such as 2026-05-01, or a phrase such as "yesterday", "last week" or "3 days ago"`,
    )
  }
  const date = result.start.date()
  if (!result.start.isCertain('hour')) date.setHours(0, 0, 0, 0)
  if (date > now && !AHEAD.test(text)) lookBack(date, result.start)
  return date.toISOString()
}

/** Moves a date chrono placed ahead (the coming Friday, next March) back to the most recent past one. */
function lookBack(date: Date, start: {isCertain(component: 'weekday' | 'day' | 'month' | 'year'): boolean}): void {
  if (start.isCertain('weekday') && !start.isCertain('day')) date.setTime(date.getTime() - 7 * DAY_MS)
  else if (start.isCertain('month') && !start.isCertain('year')) date.setFullYear(date.getFullYear() - 1)
}
