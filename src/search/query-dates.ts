import {createRequire} from 'node:module'

import type * as Chrono from 'chrono-node/en'

/** A span of time named in a query, as epoch milliseconds, end exclusive. */
export interface TimeSpan {
  start: number
  end: number
}

/** chrono is the slow part of a search, and only dates with a written year are used. */
const HAS_YEAR = /\b\d{4}\b/

/**
 * The calendar spans a query names explicitly: "on 13 October 2023" is that day, "in May 2023"
 * that month, "2022" alone is not taken (too often a number). Only dates with a written year
 * count: relative phrases ("last year", "in June") depend on when the question is asked, and
 * guessing wrong would push the right facts down. Spans are in UTC, like `created_at`.
 */
export function datesInQuery(query: string): TimeSpan[] {
  if (!HAS_YEAR.test(query)) return []
  const spans: TimeSpan[] = []
  for (const result of chrono().parse(query)) {
    const start = result.start
    if (!start.isCertain('year') || !start.isCertain('month')) continue
    const year = start.get('year')
    const month = start.get('month')
    if (year === null || month === null) continue
    const day = start.isCertain('day') ? start.get('day') : null
    const from = Date.UTC(year, month - 1, day ?? 1)
    const to = day === null ? Date.UTC(year, month, 1) : Date.UTC(year, month - 1, day + 1)
    const end = result.end && result.end.isCertain('year') ? spanEnd(result.end) : to
    spans.push({start: from, end: Math.max(to, end)})
  }
  return spans
}

let loaded: typeof Chrono | undefined

/** Loaded on first use, English only: the full package costs a cold `mem search` a tenth of a second. */
function chrono(): typeof Chrono {
  loaded ??= createRequire(import.meta.url)('chrono-node/en') as typeof Chrono
  return loaded
}

function spanEnd(c: NonNullable<Chrono.ParsedResult['end']>): number {
  const year = c.get('year') ?? 1970
  const month = c.get('month') ?? 12
  const day = c.isCertain('day') ? c.get('day') : null
  return day === null ? Date.UTC(year, month, 1) : Date.UTC(year, month - 1, day + 1)
}

export function inAnySpan(time: number, spans: TimeSpan[]): boolean {
  return spans.some((s) => time >= s.start && time < s.end)
}
