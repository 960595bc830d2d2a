import assert from 'node:assert/strict'
import {chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'

import {BIN, mem, tempHome, type RunResult} from '../helpers/mem.js'

/** HOME is a temp folder: nothing here may touch the real user's files. */
function run(dir: string, args: string[]): RunResult {
  return mem(join(dir, 'store'), args, {env: {HOME: dir, XDG_CONFIG_HOME: undefined, APPDATA: undefined}})
}

function ok(dir: string, args: string[]): RunResult {
  const r = run(dir, args)
  assert.equal(r.code, 0, `mem ${args.join(' ')}: ${r.stderr}`)
  return r
}

const readJson = (file: string): Record<string, Record<string, Record<string, unknown>>> =>
  JSON.parse(readFileSync(file, 'utf8'))

describe('mem mcp config and mem mcp install', () => {
  let h: ReturnType<typeof tempHome>
  beforeEach(() => {
    h = tempHome()
  })
  afterEach(() => h.cleanup())

  it('config prints, for every client, the entry that starts this mem with absolute paths and the same store', () => {
    const out = JSON.parse(ok(h.home, ['mcp', 'config', '--json']).stdout) as {
      clients: {
        client: string
        config_file: string
        snippet: Record<string, Record<string, {command: string; args: string[]; env?: unknown}>>
        command_line?: string
      }[]
    }
    assert.deepEqual(
      out.clients.map((c) => c.client),
      ['claude-desktop', 'claude-code', 'cursor', 'vscode'],
    )
    assert.deepEqual(
      out.clients.map((c) => c.config_file),
      [
        join(h.home, '.config', 'Claude', 'claude_desktop_config.json'),
        join(h.home, '.claude.json'),
        join(h.home, '.cursor', 'mcp.json'),
        join(h.home, '.config', 'Code', 'User', 'mcp.json'),
      ],
    )
    const entry = out.clients[0]!.snippet.mcpServers!.mem!
    assert.deepEqual(entry, {
      command: process.execPath,
      args: [BIN, 'mcp', 'serve'],
      env: {MEM_HOME: join(h.home, 'store')},
    })
    assert.ok(out.clients[3]!.snippet.servers!.mem, 'VS Code keeps servers under "servers"')
    assert.equal(
      out.clients[1]!.command_line,
      `claude mcp add --scope user mem -e MEM_HOME=${join(h.home, 'store')} -- ${process.execPath} ${BIN} mcp serve`,
    )

    const text = ok(h.home, ['mcp', 'config', '--client', 'claude-code', '--agent', 'work', '--on-path']).stdout
    assert.match(text, /^Claude Code: add this to .*\.claude\.json/)
    assert.match(text, /"command": "mem",\n\s+"args": \[\n\s+"mcp",\n\s+"serve",\n\s+"--agent",\n\s+"work"\n/)
    assert.match(text, /Or run:\n {2}claude mcp add --scope user mem -e MEM_HOME=\S+ -- mem mcp serve --agent work\n$/)
  })

  it('install creates a private file, and the entry it writes starts a working MCP server', async () => {
    const r = ok(h.home, ['mcp', 'install', '--client', 'claude-desktop', '--agent', 'desk'])
    const file = join(h.home, '.config', 'Claude', 'claude_desktop_config.json')
    assert.match(r.stdout, new RegExp(`^Created ${file} with the mem server\\.\\nQuit and reopen Claude Desktop`))
    assert.equal(statSync(file).mode & 0o777, 0o600)
    assert.equal(statSync(join(h.home, '.config', 'Claude')).mode & 0o777, 0o700)
    const entry = readJson(file).mcpServers!.mem as {command: string; args: string[]; env: Record<string, string>}

    const client = new Client({name: 'install-test', version: '1.0.0'})
    await client.connect(
      new StdioClientTransport({
        command: entry.command,
        args: entry.args,
        env: {...entry.env, PATH: process.env.PATH ?? ''},
        stderr: 'pipe',
      }),
    )
    try {
      const added = await client.callTool({
        name: 'memory_add',
        arguments: {content: 'Installed through the config file'},
      })
      assert.equal((added.structuredContent as {agent_id: string}).agent_id, 'desk')
    } finally {
      await client.close()
    }
    assert.equal(JSON.parse(ok(h.home, ['search', 'config file', '--agent', 'desk', '--json']).stdout).count, 1)
  })

  it('install merges into an existing file after a backup, keeping its other content and permissions', () => {
    const file = join(h.home, '.cursor', 'mcp.json')
    mkdirSync(join(h.home, '.cursor'))
    const original = `{\n    "mcpServers": {\n        "other": {"command": "other-server"}\n    },\n    "theme": "dark"\n}\n`
    writeFileSync(file, original)
    chmodSync(file, 0o644)
    const r = JSON.parse(ok(h.home, ['mcp', 'install', '--client', 'cursor', '--json']).stdout) as {
      backup: string
      changed: boolean
      created: boolean
      dry_run: boolean
      replaced: boolean
    }
    assert.deepEqual([r.changed, r.created, r.dry_run, r.replaced], [true, false, false, false])
    assert.equal(readFileSync(r.backup, 'utf8'), original)
    assert.match(r.backup, /mcp\.json\.mem-backup-\d{8}T\d{6}Z$/)
    const merged = readJson(file)
    assert.deepEqual(merged.mcpServers!.other, {command: 'other-server'})
    assert.equal(merged.theme as unknown, 'dark')
    assert.deepEqual(Object.keys(merged.mcpServers!), ['other', 'mem'])
    assert.match(readFileSync(file, 'utf8'), /^\{\n {4}"mcpServers"/, "keeps the file's own indentation")
    assert.equal(statSync(file).mode & 0o777, 0o644)

    // Again with the same entry: nothing to do, no new backup.
    assert.match(
      ok(h.home, ['mcp', 'install', '--client', 'cursor']).stdout,
      /already has this mem entry; nothing changed/,
    )
    assert.equal(readdirSync(join(h.home, '.cursor')).filter((n) => n.includes('mem-backup')).length, 1)

    // A different entry replaces mem's only.
    assert.match(
      ok(h.home, ['mcp', 'install', '--client', 'cursor', '--agent', 'x']).stdout,
      /Replaced the mem server entry in .*backup: /,
    )
    assert.deepEqual((readJson(file).mcpServers!.mem as {args: string[]}).args.slice(-2), ['--agent', 'x'])
    assert.deepEqual(readJson(file).mcpServers!.other, {command: 'other-server'})
  })

  it('--dry-run shows the diff and writes nothing', () => {
    const file = join(h.home, '.claude.json')
    writeFileSync(file, '{"numStartups": 3}\n')
    const r = ok(h.home, ['mcp', 'install', '--client', 'claude-code', '--dry-run'])
    assert.match(
      r.stdout,
      new RegExp(
        `^--- ${file}\\n\\+\\+\\+ ${file}\\n@@ -1,1 \\+1,\\d+ @@\\n-\\{"numStartups": 3\\}\\n\\+\\{\\n\\+  "numStartups": 3,\\n\\+  "mcpServers": \\{`,
      ),
    )
    assert.match(r.stdout, /\+ {6}"type": "stdio",/)
    assert.match(r.stdout, /Dry run: .* was not changed\.$/m)
    assert.equal(readFileSync(file, 'utf8'), '{"numStartups": 3}\n')
    assert.deepEqual(
      readdirSync(h.home).filter((n) => n.includes('mem-backup')),
      [],
    )
  })

  it('writes the project file of VS Code under "servers" with --workspace', () => {
    const project = join(h.home, 'project')
    mkdirSync(project)
    ok(h.home, ['mcp', 'install', '--client', 'vscode', '--workspace', project, '--on-path'])
    const entry = readJson(join(project, '.vscode', 'mcp.json')).servers!.mem as Record<string, unknown>
    assert.equal(entry.type, 'stdio')
    assert.equal(entry.command, 'mem')
  })

  it('leaves a file it cannot safely merge untouched and says why', () => {
    const file = join(h.home, 'mcp.json')
    const withComments = '{\n  // my servers\n  "servers": {}\n}\n'
    writeFileSync(file, withComments)
    const r = run(h.home, ['mcp', 'install', '--client', 'vscode', '--config-file', file])
    assert.equal(r.code, 2)
    assert.match(r.stderr, /is not plain JSON .* it may hold comments\. mem leaves it untouched/)
    assert.equal(readFileSync(file, 'utf8'), withComments)

    writeFileSync(file, '{"servers": []}')
    const wrongShape = run(h.home, ['mcp', 'install', '--client', 'vscode', '--config-file', file])
    assert.equal(wrongShape.code, 2)
    assert.match(wrongShape.stderr, /"servers" is not a JSON object/)
    assert.equal(readdirSync(h.home).filter((n) => n.includes('mem-backup')).length, 0)

    const noWorkspace = run(h.home, ['mcp', 'install', '--client', 'claude-desktop', '--workspace', h.home])
    assert.equal(noWorkspace.code, 2)
    assert.equal(run(h.home, ['mcp', 'install', '--client', 'notepad']).code, 2)
  })

  it('writes through a symlinked config file, keeping the link', () => {
    const target = join(h.home, 'dotfiles-cursor.json')
    writeFileSync(target, '{"mcpServers": {}}\n')
    mkdirSync(join(h.home, '.cursor'))
    symlinkSync(target, join(h.home, '.cursor', 'mcp.json'))
    ok(h.home, ['mcp', 'install', '--client', 'cursor'])
    assert.ok(lstatSync(join(h.home, '.cursor', 'mcp.json')).isSymbolicLink())
    assert.ok(readJson(target).mcpServers!.mem)
    assert.equal(
      readdirSync(h.home).filter((n) => n.startsWith('dotfiles-cursor.json.mem-backup-')).length,
      1,
      'the backup sits beside the real file',
    )
  })
})
