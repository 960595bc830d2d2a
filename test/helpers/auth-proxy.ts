import {createServer, request, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

/**
 * A loopback proxy that adds `Authorization: Bearer <token>` and passes everything else on
 * as sent (Host and Origin too), for a tool that cannot send headers of its own.
 */
export async function authProxy(target: string, token: string): Promise<{url: string; close: () => Promise<void>}> {
  const upstream = new URL(target)
  const server: Server = createServer((req, res) => {
    const up = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: {...req.headers, authorization: `Bearer ${token}`},
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers)
        r.pipe(res)
      },
    )
    up.on('error', () => {
      res.writeHead(502)
      res.end()
    })
    req.pipe(up)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    url: `http://localhost:${port}${upstream.pathname}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
