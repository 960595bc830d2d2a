import {join} from 'node:path'

import {COLLECTIONS, entries} from './inspect.js'
import {isSetAsideFile} from './journal-repair.js'
import {isJournal, readJournalBytes} from './journals.js'
import type {Note} from './report.js'

/**
 * What needs no repair but should be said: a journal whose last line was never finished (readers
 * leave it out, the next write cuts it off), and files of lines a repair set aside.
 */
export function journalNotes(dir: string, agent: string): Note[] {
  const notes: Note[] = []
  for (const {folder} of COLLECTIONS) {
    for (const entry of entries(join(dir, folder))) {
      const path = join(dir, folder, entry.name)
      if (isSetAsideFile(entry.name) && entry.isFile())
        notes.push({
          kind: 'set_aside_file',
          path,
          agent,
          note: `lines "mem doctor --fix" set aside from ${entry.name.slice(0, entry.name.indexOf('.set-aside-'))}; mem never reads this file. To take a line back, correct it and append it to the journal (docs/reliability.md, "A damaged journal"); delete the file once you no longer need it.`,
        })
      else if (isJournal(entry.name) && entry.isFile() && hasTornTail(path))
        notes.push({
          kind: 'torn_line',
          path,
          agent,
          note: 'its last line was never finished (a write that stopped part way, so it was never acknowledged): mem leaves it out when reading, and the next write to this segment cuts it off.',
        })
    }
  }
  return notes
}

function hasTornTail(path: string): boolean {
  try {
    const bytes = readJournalBytes(path)
    return bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a
  } catch {
    return false
  }
}
