/** How an MCP client starts `mem mcp serve`. */
export interface Launch {
  command: string
  args: string[]
  env?: Record<string, string>
}

export interface LaunchOptions {
  /** Write `mem` and rely on the client's PATH, instead of absolute paths. */
  onPath: boolean
  agent?: string
  /** Absolute paths of the node running now and of mem's bin/run.js. */
  nodePath: string
  binPath: string
  /** Passed on so the server uses the same store as this shell (MEM_HOME). */
  memHome?: string
  /** The same, for PostgreSQL: MEM_STORE without its password, and the connection variables (store-env.ts). */
  storeEnv?: Record<string, string>
}

/**
 * By default the entry names node and mem's bin/run.js by absolute path: desktop apps do
 * not start from a login shell, so they often lack the PATH (nvm, Homebrew) that finds
 * `mem`. --on-path writes plain `mem`, which survives upgrades that move node.
 */
export function launchOf(options: LaunchOptions): Launch {
  const serve = ['mcp', 'serve', ...(options.agent === undefined ? [] : ['--agent', options.agent])]
  const vars = {...(options.memHome ? {MEM_HOME: options.memHome} : {}), ...options.storeEnv}
  const env = Object.keys(vars).length > 0 ? vars : undefined
  const launch: Launch = options.onPath
    ? {command: 'mem', args: serve}
    : {command: options.nodePath, args: [options.binPath, ...serve]}
  return env ? {...launch, env} : launch
}

/**
 * The `claude mcp add` line for the same launch, at user scope like `mem mcp install --client
 * claude-code`. The name comes before `-e`: Claude Code's `-e` takes any number of values and
 * would read the name as another variable ("Invalid environment variable format: mem").
 */
export function claudeMcpAddLine(name: string, launch: Launch, scope: 'user' | 'project' = 'user'): string {
  const envFlags = Object.entries(launch.env ?? {}).flatMap(([k, v]) => ['-e', `${k}=${v}`])
  return ['claude', 'mcp', 'add', '--scope', scope, name, ...envFlags, '--', launch.command, ...launch.args]
    .map(shellQuote)
    .join(' ')
}

/** Quotes a word for POSIX shells only when it needs it. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`
}
