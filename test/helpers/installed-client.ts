import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {homedir} from 'node:os'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'

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
export function installedClient(pkg: string, version: string, alongside: string[] = []): string {
  return join(installedFolder(pkg, version, alongside), 'node_modules', '.bin')
}

/**
 * A client library the same way (`alongside`: other packages at pinned versions it needs, such
 * as its peers), imported from its own folder. Keeping these out of devDependencies keeps them
 * off every contributor's disk, and out of the install's engine check: some need a newer Node
 * than the one mem supports, while the parts the tests use run on it.
 */
export async function importInstalled<T>(pkg: string, version: string, alongside: string[] = []): Promise<T> {
  return (await import(pathToFileURL(join(installedFolder(pkg, version, alongside), 'entry.mjs')).href)) as T
}

function installedFolder(pkg: string, version: string, alongside: string[]): string {
  const root = process.env.MEM_TEST_CLIENTS || join(homedir(), '.cache', 'mem-test-clients')
  const safe = (spec: string): string => spec.replace(/[^A-Za-z0-9.@-]/g, '_')
  const dir = join(root, [`${pkg.replace(/[^A-Za-z0-9.-]/g, '_')}@${version}`, ...alongside.map(safe)].join('+'))
  if (existsSync(join(dir, 'installed'))) return dir
  mkdirSync(root, {recursive: true, mode: 0o700})
  const staging = mkdtempSync(join(root, '.installing-'))
  try {
    writeFileSync(join(staging, 'package.json'), '{"private":true}\n')
    // Resolved from inside the folder, so that the package and its dependencies come from there.
    writeFileSync(join(staging, 'entry.mjs'), `export * from ${JSON.stringify(pkg)}\n`)
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', `${pkg}@${version}`, ...alongside], {
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
  return dir
}

/**
 * For a suite that runs a real bridge against `mem mcp serve --http`: installs the client before
 * the suite, starts the server on a fresh home, and stops and removes both after it. Read
 * `bin`, `home` and `url` in the tests.
 */
export function bridgeSuite(pkg: string, version: string): {bin: string; home: string; url: string} {
  const suite = {} as {bin: string; home: string; url: string}
  let stop = async () => {}
  let cleanup = () => {}
  before(async function () {
    this.timeout(600_000)
    suite.bin = installedClient(pkg, version)
    const {startHttpServe} = await import('./http.js')
    const {tempHome} = await import('./mem.js')
    const temp = tempHome()
    cleanup = temp.cleanup
    suite.home = temp.home
    const served = await startHttpServe(temp.home)
    stop = async () => void (await served.stop())
    suite.url = served.url
  })
  after(async () => {
    await stop()
    cleanup()
  })
  return suite
}
