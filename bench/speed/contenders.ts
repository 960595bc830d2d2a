import {mkdirSync} from 'node:fs'
import {join} from 'node:path'

import {mem, timeProcess, type Timed} from './cold.js'
import type {SqliteScripts} from './sqlite/build.js'
import {Server} from './warm.js'

/**
 * A store measured by the comparison, through its own processes only: an import, an MCP
 * server, a cold search from a shell. Each store lives in a folder of its own (a mem home, or
 * the folder of the SQLite database), so that a path can start from a copy of an import.
 */
export interface Contender {
  name: string
  /** Loads a `mem export` file into the empty store in `dir`: one whole process. */
  importFile(dir: string, file: string): Timed
  start(dir: string): Promise<Server>
  /** One whole `search --json` process; its stdout is the JSON answer. */
  coldSearch(dir: string, query: string): Timed
}

export function memContender(agent: string): Contender {
  return {
    name: 'mem',
    importFile: (dir, file) => mem(dir, agent, ['import', '--json', file]),
    start: (dir) => Server.start(dir, agent),
    coldSearch: (dir, query) => mem(dir, agent, ['search', '--json', query]),
  }
}

export function sqliteContender(scripts: SqliteScripts): Contender {
  const database = (dir: string): string => {
    mkdirSync(dir, {recursive: true, mode: 0o700})
    return join(dir, 'memory.db')
  }
  return {
    name: 'SQLite FTS5',
    importFile: (dir, file) => timeProcess([scripts.cli, database(dir), 'import', file], process.env),
    start: (dir) => Server.spawn([scripts.server, database(dir)], process.env),
    coldSearch: (dir, query) => timeProcess([scripts.cli, database(dir), 'search', '--json', query], process.env),
  }
}
