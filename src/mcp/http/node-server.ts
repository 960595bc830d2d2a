import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server as NodeServer,
  type ServerResponse,
} from 'node:http'
import {createServer as createHttpsServer} from 'node:https'
import type {AddressInfo, Socket} from 'node:net'

import {describeErrno, MemError} from '../../errors.js'
import type {ConnectionCap} from './connection-cap.js'
import {bracketed} from './origin-check.js'

/** A connection's request headers (and a TLS handshake) must arrive within this; docs/http.md says 10 s. */
const HEADERS_MS = 10_000

export interface Listening {
  host: string
  port: number
  tls?: {cert: Buffer; key: Buffer}
  /** Longest a request may take to arrive whole. */
  requestMs: number
}

/**
 * The Node HTTP (or HTTPS) server, listening, with the bounds on its connections: a client
 * that sends slowly holds nothing for long, and the cap keeps a flood of them from using up
 * the process's file descriptors.
 */
export async function listenHttp(
  options: Listening,
  cap: ConnectionCap,
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Promise<{http: NodeServer; origin: string}> {
  // Node looks for connections past their headers or request time every 30 s unless told: a
  // connection that sent nothing would be closed after up to 40 s rather than the 10 s documented.
  const timing = {connectionsCheckingInterval: 1000}
  const http = options.tls
    ? createHttpsServer(
        {cert: options.tls.cert, key: options.tls.key, handshakeTimeout: HEADERS_MS, ...timing},
        (req, res) => void handle(req, res),
      )
    : createHttpServer(timing, (req, res) => void handle(req, res))
  http.on('connection', (socket: Socket) => {
    cap.admit(socket)
    // Small answers go out at once rather than waiting for the previous packet's acknowledgement.
    socket.setNoDelay(true)
  })
  http.headersTimeout = HEADERS_MS
  http.requestTimeout = options.requestMs
  http.keepAliveTimeout = 5_000
  await listen(http, options.host, options.port)
  const address = http.address() as AddressInfo
  return {http, origin: `${options.tls ? 'https' : 'http'}://${urlHost(address)}:${address.port}`}
}

function listen(http: NodeServer, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    // Node says only "listen EADDRINUSE"; name the address, so a second server or a busy port is plain.
    const failed = (error: NodeJS.ErrnoException) =>
      reject(
        typeof error.code === 'string'
          ? new MemError('io_error', `could not listen on ${bracketed(host)}:${port}: ${describeErrno(error.code)}`)
          : error,
      )
    http.once('error', failed)
    http.listen(port, host, () => {
      http.off('error', failed)
      resolve()
    })
  })
}

function urlHost(address: AddressInfo): string {
  return address.family === 'IPv6' ? `[${address.address}]` : address.address
}
