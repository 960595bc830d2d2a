import assert from 'node:assert/strict'
import {join} from 'node:path'

import {CLIENTS, configFileOf, type Environment} from '../../src/clients/clients.js'
import {claudeMcpAddLine, launchOf, shellQuote} from '../../src/clients/launcher.js'
import {unifiedDiff} from '../../src/clients/text-diff.js'

describe('MCP client knowledge', () => {
  const mac: Environment = {home: '/Users/ann', platform: 'darwin'}
  const win: Environment = {home: 'C:\\Users\\ann', platform: 'win32', appData: 'C:\\Users\\ann\\AppData\\Roaming'}
  const linux: Environment = {home: '/home/ann', platform: 'linux'}

  it('knows where each client keeps its user config on macOS, Windows and Linux', () => {
    const file = (id: keyof typeof CLIENTS, env: Environment): string => configFileOf(CLIENTS[id], {env})
    assert.equal(
      file('claude-desktop', mac),
      '/Users/ann/Library/Application Support/Claude/claude_desktop_config.json',
    )
    assert.equal(
      file('claude-desktop', win),
      join('C:\\Users\\ann\\AppData\\Roaming', 'Claude', 'claude_desktop_config.json'),
    )
    assert.equal(file('claude-desktop', linux), '/home/ann/.config/Claude/claude_desktop_config.json')
    assert.equal(file('claude-desktop', {...linux, xdgConfigHome: '/xdg'}), '/xdg/Claude/claude_desktop_config.json')
    assert.equal(file('vscode', mac), '/Users/ann/Library/Application Support/Code/User/mcp.json')
    assert.equal(file('vscode', linux), '/home/ann/.config/Code/User/mcp.json')
    assert.equal(file('cursor', linux), '/home/ann/.cursor/mcp.json')
    assert.equal(file('claude-code', mac), '/Users/ann/.claude.json')
  })

  it('uses project files with --workspace and the given file with --config-file', () => {
    assert.equal(configFileOf(CLIENTS.vscode, {env: linux, workspace: '/p'}), '/p/.vscode/mcp.json')
    assert.equal(configFileOf(CLIENTS.cursor, {env: linux, workspace: '/p'}), '/p/.cursor/mcp.json')
    assert.equal(configFileOf(CLIENTS['claude-code'], {env: linux, workspace: '/p'}), '/p/.mcp.json')
    assert.throws(
      () => configFileOf(CLIENTS['claude-desktop'], {env: linux, workspace: '/p'}),
      /Claude Desktop has no per-project config file/,
    )
    assert.equal(configFileOf(CLIENTS.cursor, {env: linux, workspace: '/p', configFile: '/x.json'}), '/x.json')
  })

  it('spells each entry the way its client reads it', () => {
    const launch = launchOf({onPath: false, nodePath: '/n/node', binPath: '/m/bin/run.js', agent: 'work'})
    assert.deepEqual(launch, {command: '/n/node', args: ['/m/bin/run.js', 'mcp', 'serve', '--agent', 'work']})
    assert.deepEqual(CLIENTS.vscode.entry(launch), {type: 'stdio', ...launch})
    assert.deepEqual(CLIENTS['claude-desktop'].entry(launch), launch)
    assert.equal(CLIENTS.vscode.serversKey, 'servers')
    assert.equal(CLIENTS.cursor.serversKey, 'mcpServers')
    const onPath = launchOf({onPath: true, nodePath: '/n/node', binPath: '/m/bin/run.js', memHome: '/data/mem'})
    assert.deepEqual(onPath, {command: 'mem', args: ['mcp', 'serve'], env: {MEM_HOME: '/data/mem'}})
    assert.equal(
      claudeMcpAddLine('mem', onPath),
      'claude mcp add --scope user mem -e MEM_HOME=/data/mem -- mem mcp serve',
    )
  })

  it('quotes shell words only when needed', () => {
    assert.equal(shellQuote('/usr/bin/node'), '/usr/bin/node')
    assert.equal(shellQuote('/Users/Ann Lee/mem'), "'/Users/Ann Lee/mem'")
    assert.equal(shellQuote("it's"), "'it'\\''s'")
  })

  it('shows a change as a unified diff with context', () => {
    const before = ['{', '  "a": 1,', '  "b": 2,', '  "c": 3,', '  "d": 4,', '  "e": 5', '}', ''].join('\n')
    const after = before.replace('"c": 3', '"c": 30')
    assert.equal(
      unifiedDiff(before, after, 'f.json'),
      [
        '--- f.json',
        '+++ f.json',
        '@@ -1,7 +1,7 @@',
        ' {',
        '   "a": 1,',
        '   "b": 2,',
        '-  "c": 3,',
        '+  "c": 30,',
        '   "d": 4,',
        '   "e": 5',
        ' }',
      ].join('\n'),
    )
    assert.equal(
      unifiedDiff('', '{}\n', 'new.json'),
      ['--- /dev/null', '+++ new.json', '@@ -0,0 +1,1 @@', '+{}'].join('\n'),
    )
    assert.equal(unifiedDiff('same', 'same', 'x'), '')
  })
})
