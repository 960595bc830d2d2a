import type {AgentFiles} from './agent-files.js'
import {bumpRevision, readRevision, type Revision} from './revision.js'

/**
 * After a cold read that had to decode segments the revision stamp does not vouch for (a home
 * restored or copied whole keeps every byte but no file identity), stamps their identities, so
 * that the next cold process trusts them instead of decoding them all again. Only if the lock
 * is free and the stamp exists: a search never waits for a writer, and a stamp that cannot be
 * written costs only the next process a re-read.
 */
export async function vouchChecked(a: AgentFiles, seen: Revision | undefined): Promise<void> {
  // Only a stamp that is there is added to: a reader creates nothing beside the data (a home of an
  // older format is upgraded, and stamped, by its first write).
  if (seen === undefined || a.outdated.size > 0) return
  // Not a segment with a journal: every append moves its identity, so a stamp would not outlive the next add.
  const checked = a.checked(true)
  if (Object.entries(checked).every(([key, identity]) => seen.files?.[key] === identity)) return
  try {
    const {withLockIfFree} = await import('./lock.js')
    withLockIfFree(a.dir, () => bumpRevision(a.dir, readRevision(a.dir), {}, checked, (key) => a.identityOf(key)))
  } catch {
    // Only the next process's start-up is at stake.
  }
}
