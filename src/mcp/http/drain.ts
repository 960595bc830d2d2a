import type {Server as NodeServer, ServerResponse} from 'node:http'
import {Server as NetServer} from 'node:net'

/** How long a stopping server still reads kept-alive connections for requests already sent. */
const LINGER_MS = 1000

/**
 * A stop that loses nothing already sent: every request from its headers to the end of its
 * answer is tracked, so a stop waits for each (its write too), and counts those it could not.
 */
export class Drain {
  private readonly requests = new Map<ServerResponse, Promise<void>>()
  private stopping = false

  /** True once a stop began: new requests get 503 with Retry-After, and answers close their connection. */
  get draining(): boolean {
    return this.stopping
  }

  track(res: ServerResponse): void {
    const answered = new Promise<void>((resolve) => res.once('close', resolve))
    this.requests.set(res, answered)
    void answered.then(() => this.requests.delete(res))
    if (this.stopping) res.setHeader('Connection', 'close')
  }

  /** Stops accepting, lets the requests under way finish, then closes every connection. */
  async stop(http: NodeServer, graceMs: number): Promise<{unfinished: number}> {
    this.stopping = true
    // Answers from now on end their connection, so clients stop sending on it.
    for (const res of this.requests.keys()) if (!res.headersSent) res.setHeader('Connection', 'close')
    // net.Server's close, not http.Server's: that one also drops every idle kept-alive connection
    // at once, and with it any request a client has already sent on one that is not read yet.
    const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(http, () => resolve()))
    const deadline = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), graceMs).unref())
    // Requests already on their way are read and answered (503 with Retry-After, or served if
    // their headers had arrived) before the kept-alive connections close.
    await Promise.race([new Promise((resolve) => setTimeout(resolve, Math.min(LINGER_MS, graceMs))), deadline])
    while (this.requests.size > 0) {
      const settled = Promise.allSettled([...this.requests.values()]).then(() => 'done' as const)
      if ((await Promise.race([settled, deadline])) === 'late') break
    }
    const unfinished = this.requests.size
    http.closeAllConnections()
    await Promise.race([closed, deadline])
    return {unfinished}
  }
}
