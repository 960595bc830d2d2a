import {monotonicFactory} from 'ulid'

const next = monotonicFactory()

/** ULIDs: unique, and their text sorts in creation order (millisecond precision). */
export function newId(time: number = Date.now()): string {
  return next(time)
}

export const ID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/
