import * as v from 'valibot'

import {InputError} from '../errors.js'

/**
 * A date ("2026-05-01", midnight UTC) or a date and time with its offset
 * ("2026-05-01T09:00:00Z", "2026-05-01T11:00:00+02:00"). A time without an offset is refused:
 * it would mean a different instant on every machine that reads it.
 */
const ISO_DATE_OR_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/

export function isIsoDateOrTime(value: string): boolean {
  return looksIsoDateOrTime(value) && impossibleDate(value) === undefined && !Number.isNaN(Date.parse(value))
}

/** Written as an ISO date or time, whether or not the calendar has that day. */
export function looksIsoDateOrTime(value: string): boolean {
  return ISO_DATE_OR_TIME.test(value)
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
]

/**
 * What is impossible about an ISO-shaped date, or undefined when the calendar has it. Date.parse
 * alone would read 2026-02-30 as 2 March.
 */
export function impossibleDate(value: string): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(value)
  if (!match) return undefined
  const [year, month, day, hour, minute, second] = match
    .slice(1)
    .map((part) => (part === undefined ? 0 : Number(part))) as number[]
  if (month! < 1 || month! > 12) return `there is no month ${month}`
  const days = new Date(Date.UTC(year!, month!, 0)).getUTCDate()
  if (day! < 1 || day! > days) return `${MONTHS[month! - 1]} ${year} has ${days} days`
  if (hour! > 23 || minute! > 59 || second! > 59) return 'the time of day is out of range'
  return undefined
}

export const IsoDateOrTime = v.pipe(
  v.string(),
  v.check(
    (value) => !looksIsoDateOrTime(value) || impossibleDate(value) === undefined,
    (issue) => `is not a real date: ${impossibleDate(issue.input as string)}`,
  ),
  v.check(isIsoDateOrTime, 'must be an ISO 8601 date or time with an offset, e.g. 2026-05-01 or 2026-05-01T09:00:00Z'),
)

export const Since = v.pipe(
  IsoDateOrTime,
  v.description(
    'Only facts saved at or after this ISO 8601 date or time (e.g. "2026-05-01" or "2026-05-01T09:00:00Z").',
  ),
)
export const Until = v.pipe(
  IsoDateOrTime,
  v.description('Only facts saved before this ISO 8601 date or time (exclusive).'),
)

export interface TimeRange {
  since?: string
  until?: string
}

export function hasRange(range: TimeRange): boolean {
  return range.since !== undefined || range.until !== undefined
}

/**
 * A range that ends where or before it starts holds no instant, so it is always a mistake (the
 * bounds swapped, or a phrase read the wrong way): say so rather than answer "nothing found".
 * The error names its two fields, so each surface words them its own way (`--since` at the CLI).
 */
export function checkRangeOrder(range: TimeRange): void {
  if (range.since === undefined || range.until === undefined) return
  if (Date.parse(range.until) > Date.parse(range.since)) return
  throw new InputError(
    `invalid input: until must be after since, or no fact can match (${range.until} is not after ${range.since})`,
    ['since', 'until'],
  )
}

/** Since is inclusive and until exclusive, so consecutive ranges never count a fact twice. */
export function inRange(createdAt: string, range: TimeRange): boolean {
  const time = Date.parse(createdAt)
  if (range.since !== undefined && !(time >= Date.parse(range.since))) return false
  if (range.until !== undefined && !(time < Date.parse(range.until))) return false
  return true
}
