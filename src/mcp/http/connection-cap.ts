import type {Socket} from 'node:net'

/**
 * At most `max` open connections, so a flood of sockets that send nothing cannot use up the
 * process's file descriptors (and with them the store's files). A connection over the cap
 * closes the oldest one that has no request under way (one still sending its headers, or a
 * kept-alive one between requests) rather than being refused itself: a client that connects
 * during a flood is served, and the flood gives way. Only when every connection has a request
 * under way is the new one closed.
 *
 * Connections are known by their remote address and port, which the raw socket (seen on
 * 'connection') and the TLS socket of its requests share.
 */
export class ConnectionCap {
  /** Insertion order is age: the first entry without a request under way is the one to close. */
  private readonly open = new Map<string, {socket: Socket; requests: number}>()
  private warned = false

  constructor(
    private readonly max: number,
    /** Called the first time the cap is reached, to say so once in the log. */
    private readonly onFull: () => void = () => {},
  ) {}

  /** For the server's 'connection' event. */
  admit(socket: Socket): void {
    if (this.open.size >= this.max) {
      if (!this.warned) {
        this.warned = true
        this.onFull()
      }
      if (!this.closeOldestIdle()) {
        socket.destroy()
        return
      }
    }
    const key = keyOf(socket)
    const entry = {socket, requests: 0}
    this.open.set(key, entry)
    socket.once('close', () => {
      if (this.open.get(key) === entry) this.open.delete(key)
    })
  }

  private closeOldestIdle(): boolean {
    for (const [key, connection] of this.open) {
      if (connection.requests > 0) continue
      this.open.delete(key)
      connection.socket.destroy()
      return true
    }
    return false
  }

  /** Marks a request under way on `socket` until the returned function is called. */
  busy(socket: Socket): () => void {
    const entry = this.open.get(keyOf(socket))
    if (!entry) return () => {}
    entry.requests++
    let done = false
    return () => {
      if (done) return
      done = true
      entry.requests--
    }
  }
}

function keyOf(socket: Socket): string {
  return `${socket.remoteAddress}|${socket.remotePort}`
}
