import {lstatSync, statSync, type Dirent} from 'node:fs'
import {join} from 'node:path'

import {MemError} from '../../errors.js'

/**
 * What mem does with symbolic links inside its home, the same for the store, listings,
 * backups (`mem export --all`) and `mem doctor` (docs/reliability.md, "Symbolic links"):
 *
 * - folders may be links and are followed: an agent folder (`agents/<id>` → another disk),
 *   its `facts/` and `checkpoints/`;
 * - data files may not: a write replaces a file by a rename, which would replace the link and
 *   leave the file it points to behind, so a linked segment is refused by every operation;
 * - `cache/` may not: any search writes a copy of every live fact there, without the lock, and
 *   a link would put that copy wherever it points. The index is then neither read nor saved.
 */

/** True when `path` itself is a symbolic link (whatever it points to, or nothing). */
export function isLink(path: string): boolean {
  return lstatSync(path, {throwIfNoEntry: false})?.isSymbolicLink() === true
}

/** A folder entry that is a folder, or a link to one. */
export function isFolderEntry(parent: string, entry: Dirent): boolean {
  if (entry.isDirectory()) return true
  return entry.isSymbolicLink() && statSync(join(parent, entry.name), {throwIfNoEntry: false})?.isDirectory() === true
}

/** Why a linked data file is refused, in the words both the store and `mem doctor` use. */
export function linkedDataFileProblem(): string {
  return 'it is a symbolic link, and mem keeps its data files as regular files only (a write would replace the link and leave the file it points to behind)'
}

export function linkedDataFileFix(path: string): string {
  return `put the file itself in place of the link: cp --remove-destination "$(readlink -f ${JSON.stringify(path)})" ${JSON.stringify(path)}`
}

/** Thrown by every operation that meets a linked data file; `mem doctor` reports the same. */
export function refuseLinkedDataFile(path: string): void {
  if (!isLink(path)) return
  throw new MemError(
    'corrupt_file',
    `${path} cannot be used: ${linkedDataFileProblem()}. It was left untouched. To go on, ${linkedDataFileFix(path)}; "mem doctor" lists every such link.`,
  )
}
