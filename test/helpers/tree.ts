import {createHash} from 'node:crypto'
import {readFileSync, readdirSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'

/** Every file under `root` with a hash of its bytes: equal snapshots mean nothing changed. */
export function snapshotTree(root: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name)
      if (statSync(full).isDirectory()) walk(full)
      else out[relative(root, full)] = createHash('sha256').update(readFileSync(full)).digest('hex')
    }
  }
  walk(root)
  return out
}
