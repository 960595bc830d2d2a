import {MemError} from '../errors.js'
import {CLIENTS, type ClientId} from './clients.js'
import {shellQuote} from './launcher.js'
import {SERVER_NAME} from './snippet.js'

/** Written where the token goes when none is given: the user pastes the one `mem token create` printed. */
export const TOKEN_PLACEHOLDER = '<token from mem token create>'

export interface RemoteSnippet {
  client: ClientId
  name: string
  servers_key: string
  /** How the client reaches the server: over HTTP itself, or through the mcp-remote bridge (stdio only). */
  via: 'http' | 'mcp-remote'
  snippet: Record<string, Record<string, Record<string, unknown>>>
  command_line?: string
}

export function checkServerUrl(url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new MemError(
      'invalid_input',
      `--url ${JSON.stringify(url)} is not a URL; give the server's endpoint, e.g. http://127.0.0.1:7411/mcp`,
    )
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new MemError('invalid_input', `--url must start with http:// or https://, not ${parsed.protocol}//`)
  return parsed.href
}

/**
 * The entry that points a client at a running `mem mcp serve --http`. Claude Code, Cursor
 * and VS Code speak Streamable HTTP and send a header; Claude Desktop's config file starts
 * stdio servers only, so it gets the mcp-remote bridge, with the token in its environment.
 */
export function remoteSnippet(id: ClientId, url: string, token = TOKEN_PLACEHOLDER): RemoteSnippet {
  const client = CLIENTS[id]
  const headers = {Authorization: `Bearer ${token}`}
  const base = {client: id, name: client.name, servers_key: client.serversKey}
  const wrap = (entry: Record<string, unknown>) => ({[client.serversKey]: {[SERVER_NAME]: entry}})
  switch (id) {
    case 'claude-code':
      return {
        ...base,
        via: 'http',
        snippet: wrap({type: 'http', url, headers}),
        command_line: [
          'claude',
          'mcp',
          'add',
          '--scope',
          'user',
          '--transport',
          'http',
          SERVER_NAME,
          url,
          '--header',
          `Authorization: Bearer ${token}`,
        ]
          .map(shellQuote)
          .join(' '),
      }
    case 'vscode':
      return {...base, via: 'http', snippet: wrap({type: 'http', url, headers})}
    case 'cursor':
      return {...base, via: 'http', snippet: wrap({url, headers})}
    case 'claude-desktop': {
      // mcp-remote refuses plain http:// to anything but localhost unless told.
      const allowHttp = url.startsWith('http://') ? ['--allow-http'] : []
      return {
        ...base,
        via: 'mcp-remote',
        snippet: wrap({
          command: 'npx',
          args: ['-y', 'mcp-remote', url, '--header', 'Authorization:${MEM_AUTH_HEADER}', ...allowHttp],
          env: {MEM_AUTH_HEADER: `Bearer ${token}`},
        }),
      }
    }
  }
}

export function remoteProse(s: RemoteSnippet): string {
  const how =
    s.via === 'http' ? 'connects over HTTP' : 'starts the mcp-remote bridge (its config takes stdio servers only)'
  const lines = [`${s.name} ${how}; add this to its config:`, JSON.stringify(s.snippet, null, 2)]
  if (s.command_line) lines.push('Or run:', `  ${s.command_line}`)
  return lines.join('\n')
}
