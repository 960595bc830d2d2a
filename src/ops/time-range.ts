import * as v from 'valibot'

/**
 * A date ("2026-05-01", midnight UTC) or a date and time with its offset
 * ("2026-05-01T09:00:00Z", "2026-05-01T11:00:00+02:00"). A time without an offset is refused:
 * it would mean a different instant on every machine that reads it.
 */
const ISO_DATE_OR_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/

export function isIsoDateOrTime(value: string): boolean {
  return ISO_DATE_OR_TIME.test(value) && !Number.isNaN(Date.parse(value))
}

export const IsoDateOrTime = v.pipe(
  v.string(),
  v.check(isIsoDateOrTime, 'must be an ISO 8601 date or time with an offset, e.g. 2026-05-01 or 2026-05-01T09:00:00Z'),
)

export const Since = v.pipe(IsoDateOrTime, v.description('Only facts saved at or after this ISO 8601 date or time (e.g. "2026-05-01" or "2026-05-01T09:00:00Z").'))
export const Until = v.pipe(IsoDateOrTime, v.description('Only facts saved before this ISO 8601 date or time (exclusive).'))

export interface TimeRange {
  since?: string
  until?: string
}

export function hasRange(range: TimeRange): boolean {
  return range.since !== undefined || range.until !== undefined
}

/** Since is inclusive and until exclusive, so consecutive ranges never count a fact twice. */
export function inRange(createdAt: string, range: TimeRange): boolean {
  const time = Date.parse(createdAt)
  if (range.since !== undefined && !(time >= Date.parse(range.since))) return false
  if (range.until !== undefined && !(time < Date.parse(range.until))) return false
  return true
}
