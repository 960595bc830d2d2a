import {homedir, platform, tmpdir} from 'node:os'
import {join} from 'node:path'

/**
 * The folder oclif 4 gives `config.configDir` for the `mem` binary, computed without loading
 * oclif (node_modules/@oclif/core/lib/config/config.js: `scopedEnvVar('CONFIG_DIR') ||
 * dir('config')`), so the fast path and the oclif commands agree on where data lives.
 * An empty variable counts as unset, as in oclif.
 */
export function configDir(env: NodeJS.ProcessEnv = process.env, os: string = platform()): string {
  if (env.MEM_CONFIG_DIR) return env.MEM_CONFIG_DIR
  const windows = os === 'win32'
  const windowsHome = (env.HOMEDRIVE && env.HOMEPATH && join(env.HOMEDRIVE, env.HOMEPATH)) || env.USERPROFILE
  const home = env.HOME || (windows && windowsHome) || homedir() || tmpdir()
  const base = env.XDG_CONFIG_HOME || (windows && env.LOCALAPPDATA) || join(home, '.config')
  return join(base, 'mem')
}
