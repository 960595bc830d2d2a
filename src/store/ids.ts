import {randomFillSync} from 'node:crypto'

import {decodeTime, incrementBase32, monotonicFactory} from 'ulid'

/**
 * ulid's own source of randomness asks the system for one byte per character (16 calls per
 * id, each a system call): these come from a pool of the same cryptographic bytes, refilled a
 * few kilobytes at a time. A byte over 256 picks each of the 32 characters equally often.
 */
const pool = Buffer.alloc(4096)
let drawn = pool.length

function randomFraction(): number {
  if (drawn === pool.length) {
    randomFillSync(pool)
    drawn = 0
  }
  return pool[drawn++]! / 256
}

const next = monotonicFactory(randomFraction)

/** ULIDs: unique, and their text sorts in creation order (millisecond precision). */
export function newId(time: number = Date.now()): string {
  return next(time)
}

/**
 * A new id that sorts after `last` whatever the clock says: a clock stepped back (an NTP
 * correction, a restored VM) must not make a new record look older than the one before it.
 * Taken under the agent's lock, so ids are the agent's own sequence.
 */
export function idAfter(last: string | undefined, time: number = Date.now()): string {
  if (last === undefined || decodeTime(last) < time) return newId(time)
  return `${last.slice(0, 10)}${incrementBase32(last.slice(10))}`
}

/** The largest id among `records`, or undefined for none. */
export function maxId(records: readonly {id: string}[]): string | undefined {
  let max: string | undefined
  for (const r of records) if (max === undefined || r.id > max) max = r.id
  return max
}

export const ID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/
