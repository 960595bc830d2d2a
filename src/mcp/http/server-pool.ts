import type {Server} from '@modelcontextprotocol/sdk/server/index.js'

/** A server of the pool and the log entry of the request it serves now. */
export interface Pooled {
  key: string
  server: Server
  entry?: {result?: string[]}
}

/**
 * SDK servers kept between requests. Building one costs about 2 ms here, more than a search;
 * a server serves one request (one transport) at a time, so each request takes its own and
 * gives it back only when that request ended cleanly, with no handler still running.
 */
export class ServerPool {
  private readonly free = new Map<string, Pooled[]>()

  constructor(private readonly perKey = 8) {}

  /** A free server for `key` (a grant: token and mode), or a new one from `build`. */
  take(key: string, build: (onCall: (tool: string, ok: boolean) => void) => Server): Pooled {
    const reused = this.free.get(key)?.pop()
    if (reused) return reused
    const pooled: Pooled = {key, server: undefined as unknown as Server}
    pooled.server = build((_tool, ok) =>
      (pooled.entry?.result ?? (pooled.entry!.result = [])).push(ok ? 'ok' : 'tool_error'),
    )
    return pooled
  }

  give(pooled: Pooled): void {
    pooled.entry = undefined
    const list = this.free.get(pooled.key) ?? []
    if (list.length < this.perKey) list.push(pooled)
    this.free.set(pooled.key, list)
  }
}
