import {openMeaning} from '../meaning/open-meaning.js'
import {openStore} from '../store/open-store.js'
import type {OperationContext} from '../ops/index.js'
import {configDir} from './config-dir.js'

/** Where data lives: MEM_HOME when set, else the config dir (~/.config/mem on Linux, XDG-aware). */
export function resolveHome(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.MEM_HOME
  return fromEnv && fromEnv.trim() !== '' ? fromEnv : configDir(env)
}

export function defaultAgent(flag: string | undefined): string {
  return flag ?? process.env.MEM_AGENT ?? 'default'
}

/**
 * The store for a command (the files, or PostgreSQL under MEM_STORE), ranking by meaning too
 * when it is on (src/meaning/); `longLived` for the commands that keep running (mcp serve,
 * browse). The caller closes the store when it ends.
 */
export function openContext(agentFlag?: string, longLived = false): OperationContext {
  const home = resolveHome()
  const meaning = openMeaning(home, longLived)
  return {store: openStore(home, {shortLived: !longLived, meaning}), defaultAgent: defaultAgent(agentFlag)}
}
