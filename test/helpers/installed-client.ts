import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {homedir} from 'node:os'
import {join} from 'node:path'

/**
 * A real client program too heavy to be a devDependency that every contributor installs
 * (Claude Code's CLI is 235 MB): installed from the npm registry on first use, at the version a
 * test pins, into a folder of the suite's own, and reused by later runs. Returns the folder of
 * its executables (`node_modules/.bin`), to put on a child's PATH.
 *
 * The folder is `$MEM_TEST_CLIENTS`, else `~/.cache/mem-test-clients` (not `XDG_CACHE_HOME`: the
 * suite points that at a temporary folder, test/helpers/cache-home.ts). An install goes to a
 * temporary folder first and is renamed into place, so parallel test processes never see half
 * of one.
 */
export function installedClient(pkg: string, version: string): string {
  const root = process.env.MEM_TEST_CLIENTS || join(homedir(), '.cache', 'mem-test-clients')
  const dir = join(root, `${pkg.replace(/[^A-Za-z0-9.-]/g, '_')}@${version}`)
  const bin = join(dir, 'node_modules', '.bin')
  if (existsSync(join(dir, 'installed'))) return bin
  mkdirSync(root, {recursive: true, mode: 0o700})
  const staging = mkdtempSync(join(root, '.installing-'))
  try {
    writeFileSync(join(staging, 'package.json'), '{"private":true}\n')
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', `${pkg}@${version}`], {
      cwd: staging,
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 600_000,
    })
    writeFileSync(join(staging, 'installed'), `${pkg}@${version}\n`)
    try {
      renameSync(staging, dir)
    } catch (error) {
      // Another test process finished the same install first: use its copy.
      if (!existsSync(join(dir, 'installed'))) throw error
    }
  } finally {
    rmSync(staging, {recursive: true, force: true})
  }
  return bin
}
