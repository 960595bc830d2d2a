import {FileStore} from '../store/file-store.js'
import type {OperationContext} from '../ops/index.js'
import {configDir} from './config-dir.js'

/** Where data lives: MEM_HOME when set, else the config dir (~/.config/mem on Linux, XDG-aware). */
export function resolveHome(): string {
  const fromEnv = process.env.MEM_HOME
  return fromEnv && fromEnv.trim() !== '' ? fromEnv : configDir()
}

export function defaultAgent(flag: string | undefined): string {
  return flag ?? process.env.MEM_AGENT ?? 'default'
}

/** The store for a command; `longLived` for the commands that keep running (mcp serve, browse). */
export function openContext(agentFlag?: string, longLived = false): OperationContext {
  return {store: new FileStore(resolveHome(), {shortLived: !longLived}), defaultAgent: defaultAgent(agentFlag)}
}
