import {Flags, type Interfaces} from '@oclif/core'
import * as v from 'valibot'

import {MemCommand} from '../../cli/base-command.js'
import {agentFlagFor} from '../../cli/flag-spec.js'
import {oclifFlags} from '../../cli/oclif-flags.js'
import {MemError} from '../../errors.js'
import {readingToolsInWords, toolsInWords} from '../../mcp/read-only.js'
import {AgentId} from '../../ops/fields.js'
import {operations} from '../../ops/index.js'
import {parseInput, resolveAgent, type OperationContext} from '../../ops/operation.js'

type ServeFlags = Interfaces.InferredFlags<typeof McpServe.flags>

export default class McpServe extends MemCommand {
  static override summary = "Run the MCP server on stdio (for an MCP client's config), or over HTTP for many clients."
  static override description =
    `Serves ${toolsInWords(operations.map((op) => op.tool))} over stdio. ` +
    'stdout carries only the protocol; messages go to stderr. Tools that name no agent_id use --agent, else $MEM_AGENT, else "default". ' +
    'With --http, serves the same tools over MCP Streamable HTTP (stateless) at http://127.0.0.1:7411/mcp for every client holding a token from "mem token create"; ' +
    'one JSON line per request goes to stderr. See docs/http.md.'
  static override examples = [
    '<%= config.bin %> mcp serve',
    '<%= config.bin %> mcp serve --agent claude-desktop',
    '<%= config.bin %> mcp serve --read-only',
    '<%= config.bin %> mcp serve --http',
    '<%= config.bin %> mcp serve --http --port 8080 --allowed-host mem.internal --allow-remote --host 0.0.0.0 --tls-cert cert.pem --tls-key key.pem',
  ]
  static override flags = {
    ...oclifFlags(agentFlagFor('Default agent for tool calls that name none [default: $MEM_AGENT, else "default"].')),
    'read-only': Flags.boolean({
      description: `Offer only the tools that never write (${readingToolsInWords()}).`,
    }),
    http: Flags.boolean({
      description: 'Serve over MCP Streamable HTTP instead of stdio; every request needs a token (mem token create).',
    }),
    host: Flags.string({
      description: 'Address to listen on with --http; anything but loopback also needs --allow-remote.',
      default: '127.0.0.1',
      helpValue: 'ADDRESS',
      helpGroup: 'HTTP',
    }),
    port: Flags.integer({
      description: 'Port to listen on with --http (0: any free port).',
      default: 7411,
      min: 0,
      max: 65_535,
      helpGroup: 'HTTP',
    }),
    'allow-remote': Flags.boolean({
      description:
        'Allow --host to be an address other machines can reach; needs --tls-cert and --tls-key, or --tls-proxy.',
      helpGroup: 'HTTP',
    }),
    'tls-cert': Flags.string({
      description: 'PEM certificate file: serve HTTPS.',
      helpValue: 'FILE',
      dependsOn: ['tls-key'],
      helpGroup: 'HTTP',
    }),
    'tls-key': Flags.string({
      description: 'PEM private key file for --tls-cert.',
      helpValue: 'FILE',
      dependsOn: ['tls-cert'],
      helpGroup: 'HTTP',
    }),
    'tls-proxy': Flags.boolean({
      description: 'Say that a reverse proxy in front terminates TLS, so plain HTTP on --host is wanted.',
      helpGroup: 'HTTP',
    }),
    'allowed-host': Flags.string({
      description:
        'Another name clients use in the Host header (loopback names are always allowed); repeat for several.',
      multiple: true,
      helpValue: 'NAME',
      helpGroup: 'HTTP',
    }),
    'allowed-origin': Flags.string({
      description: 'Another browser Origin allowed to call, e.g. https://app.example; repeat for several.',
      multiple: true,
      helpValue: 'URL',
      helpGroup: 'HTTP',
    }),
    'max-body': Flags.integer({
      description: 'Largest request body in bytes (413 above).',
      default: 2 * 1024 * 1024,
      min: 1024,
      helpGroup: 'HTTP',
    }),
    'rate-limit': Flags.integer({
      description: 'Requests a minute per token (429 above), with bursts of a tenth of that.',
      default: 600,
      min: 1,
      helpGroup: 'HTTP',
    }),
    'max-connections': Flags.integer({
      description:
        'Most connections open at once; over it, the oldest with no request under way is closed. Keep it below the open-file limit (ulimit -n).',
      default: 1024,
      min: 1,
      helpGroup: 'HTTP',
    }),
    'request-timeout': Flags.integer({
      description: 'Seconds a request may take before it is answered 504.',
      default: 30,
      min: 1,
      max: 600,
      helpGroup: 'HTTP',
    }),
  }

  async run(): Promise<void> {
    const {flags, raw} = await this.parse(McpServe)
    if (flags.http) return this.serveHttp(flags)
    rejectHttpOnly(raw)
    const ctx = checkedContext(this.context(flags.agent, true), flags.agent)
    // The SDK is loaded here only, so that no other command pays for it.
    const [{createServer}, {StdioLineTransport}, {serveStdio}] = await Promise.all([
      import('../../mcp/server.js'),
      import('../../mcp/stdio-transport.js'),
      import('@modelcontextprotocol/server/stdio'),
    ])
    // Answers oversized and unreadable lines itself, and at the end of stdin closes once every request is answered.
    const transport = new StdioLineTransport(process.stdin, process.stdout)
    // The first message picks the era: a 2025 client's initialize, or a 2026-07-28 request with its envelope.
    serveStdio(() => createServer(ctx, this.config.version, {readOnly: flags['read-only']}), {transport})
    // A person who typed this at a terminal sees why nothing happens; a client (stdin a pipe) gets an empty stderr.
    if (process.stdin.isTTY) process.stderr.write(WAITING)
    await transport.finished
  }

  private async serveHttp(flags: ServeFlags): Promise<void> {
    const [{startHttpServer}, {checkExposure, readTls}, {resolveHome}] = await Promise.all([
      import('../../mcp/http/http-server.js'),
      import('../../mcp/http/exposure.js'),
      import('../../cli/home.js'),
    ])
    checkExposure({
      host: flags.host,
      allowRemote: flags['allow-remote'],
      tls: flags['tls-cert'] !== undefined,
      tlsProxy: flags['tls-proxy'],
    })
    const ctx = checkedContext(this.context(flags.agent, true), flags.agent)
    const log = (entry: Record<string, unknown>) => process.stderr.write(`${JSON.stringify(entry)}\n`)
    const running = await startHttpServer({
      home: resolveHome(),
      store: ctx.store,
      defaultAgent: ctx.defaultAgent,
      version: this.config.version,
      host: flags.host,
      port: flags.port,
      tls: flags['tls-cert'] === undefined ? undefined : readTls(flags['tls-cert'], flags['tls-key']!),
      tlsProxy: flags['tls-proxy'],
      allowedHosts: flags['allowed-host'] ?? [],
      allowedOrigins: flags['allowed-origin'] ?? [],
      readOnly: flags['read-only'],
      limits: {
        bodyBytes: flags['max-body'],
        perMinute: flags['rate-limit'],
        burst: Math.max(1, Math.ceil(flags['rate-limit'] / 10)),
        requestMs: flags['request-timeout'] * 1000,
        connections: flags['max-connections'],
      },
      log,
    })
    log({
      time: new Date().toISOString(),
      event: 'listening',
      url: running.url,
      read_only: flags['read-only'] === true,
      tokens: running.tokens(),
    })
    if (running.tokens() === 0)
      log({
        time: new Date().toISOString(),
        event: 'warning',
        message:
          'no tokens yet, so every request is refused: run "mem token create" (the server sees new tokens at once)',
      })
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        log({time: new Date().toISOString(), event: 'stopping', signal})
        void running.close(9000).then(({unfinished}) => {
          log({time: new Date().toISOString(), event: 'stopped', unfinished})
          process.exitCode = unfinished === 0 ? 0 : 1
          resolve()
        })
      }
      process.once('SIGTERM', () => stop('SIGTERM'))
      process.once('SIGINT', () => stop('SIGINT'))
    })
    // Lock refresh timers and kept-alive sockets must not hold the process past its grace time.
    setTimeout(() => process.exit(), 500).unref()
  }
}

/**
 * A default agent that is not a valid id would fail every tool call that names none, while the
 * client shows the server connected: refused at start instead (exit 2), in the words every other
 * command uses for --agent, or for MEM_AGENT when that is where it came from.
 */
function checkedContext(ctx: OperationContext, flag: string | undefined): OperationContext {
  if (flag !== undefined) parseInput(v.strictObject({agent_id: AgentId}), {agent_id: flag})
  resolveAgent(ctx, undefined)
  return ctx
}

/**
 * HTTP flags given without --http would be ignored silently, and `mem mcp serve --port 8080`
 * would sit waiting on stdin: say so instead. The flags the user typed are read from the
 * parse's tokens, since the ones with a default (--port, --host) are always set.
 */
function rejectHttpOnly(raw: Interfaces.ParserOutput['raw']): void {
  const given = [
    ...new Set(
      raw.flatMap((token) =>
        token.type === 'flag' && McpServe.flags[token.flag as keyof typeof McpServe.flags]?.helpGroup === 'HTTP'
          ? [token.flag]
          : [],
      ),
    ),
  ]
  const one = given.length === 1
  if (given.length > 0)
    throw new MemError(
      'invalid_input',
      `${given.map((f) => `--${f}`).join(', ')} ${one ? 'applies' : 'apply'} only with --http; add --http or leave ${one ? 'it' : 'them'} out`,
    )
}

const WAITING =
  'mem mcp serve: waiting for an MCP client on stdin (this is what a client starts, not a prompt); to add mem to a client run "mem mcp install --client claude-code" (or claude-desktop, cursor, vscode); Ctrl-C stops.\n'
