import assert from 'node:assert/strict'
import {chmodSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {mcpConfig} from '../../src/clients/mcp-config.js'
import {mcpInstall} from '../../src/clients/mcp-install.js'
import {doctor} from '../../src/doctor/doctor.js'
import {jsonSchemaOf} from '../../src/mcp/tools.js'
import {operations} from '../../src/ops/index.js'
import {memExport} from '../../src/transfer/export.js'
import {memImport} from '../../src/transfer/import.js'
import {mem, tempHome, type RunResult} from '../helpers/mem.js'
import {validateAgainst} from '../helpers/schema.js'

/** What every command prints for a failure under --json, whichever command it is. */
function assertJsonError(r: RunResult, code: string, exit: number): {code: string; message: string} {
  assert.equal(r.code, exit, `${r.stdout}${r.stderr}`)
  const lines = r.stdout.split('\n').filter((l) => l !== '')
  assert.equal(lines.length, 1, `one JSON line on stdout: ${r.stdout}`)
  const body = JSON.parse(lines[0]!) as {error: {code: string; message: string}}
  assert.equal(body.error.code, code)
  assert.equal(typeof body.error.message, 'string')
  assert.equal(r.stderr, `Error: ${body.error.message}\n`)
  return body.error
}

/** A payload printed under --json: one line, valid against the operation's own output schema. */
function assertPayload(r: RunResult, output: Parameters<typeof jsonSchemaOf>[0]): Record<string, unknown> {
  const lines = r.stdout.split('\n').filter((l) => l !== '')
  assert.equal(lines.length, 1, `one JSON line on stdout: ${r.stdout}`)
  const payload = JSON.parse(lines[0]!) as Record<string, unknown>
  assert.equal(validateAgainst(jsonSchemaOf(output), payload), undefined, lines[0])
  return payload
}

describe('commands that are operations of the CLI alone print and fail as the tools do', () => {
  let home: ReturnType<typeof tempHome>
  beforeEach(() => {
    home = tempHome()
  })
  afterEach(() => home.cleanup())

  it('none of them is an MCP tool', () => {
    const tools = operations.map((op) => op.tool)
    for (const op of [doctor, memImport, memExport, mcpConfig, mcpInstall]) assert.ok(!tools.includes(op.tool), op.tool)
  })

  describe('mem doctor', () => {
    it('--json prints the report its output schema declares; problems left end with exit 1', () => {
      assert.equal(mem(home.home, ['add', 'Uses pnpm', '-a', 'alice']).code, 0)
      const clean = mem(home.home, ['doctor', '--json'])
      assert.equal(clean.code, 0, clean.stderr)
      assert.equal(assertPayload(clean, doctor.output).ok, true)

      const facts = join(home.home, 'agents', 'alice', 'facts')
      chmodSync(facts, 0o755)
      const left = mem(home.home, ['doctor', '--json'])
      assert.equal(left.code, 1, left.stdout)
      assert.equal(left.stderr, '')
      assert.equal(assertPayload(left, doctor.output).ok, false)
    })

    it('a usage error under --json is the error object, exit 2', () => {
      mkdirSync(home.home, {recursive: true})
      const message = assertJsonError(mem(home.home, ['doctor', '--bogus', '--json']), 'invalid_input', 2).message
      assert.match(message, /--bogus.*\(see mem doctor --help\)$/)
    })
  })

  describe('mem import and mem export', () => {
    it('--json prints the report and the summary their output schemas declare', () => {
      assert.equal(mem(home.home, ['add', 'Uses pnpm', '-a', 'alice']).code, 0)
      const file = join(home.home, 'backup.jsonl')
      const exported = mem(home.home, ['export', '--all', '-o', file, '--json'])
      assert.equal(exported.code, 0, exported.stderr)
      assert.equal(assertPayload(exported, memExport.output).file, file)
      const imported = mem(home.home, ['import', file, '--agent', 'bob', '--json'])
      assert.equal(imported.code, 0, imported.stderr)
      assert.deepEqual(assertPayload(imported, memImport.output).added, {facts: 1, checkpoints: 0})
    })

    it('a rejected import is the error object with every bad line, exit 2, and nothing is written', () => {
      writeFileSync(join(home.home, 'bad.jsonl'), '{"type":"turn"}\nnot json\n')
      const r = mem(home.home, ['import', join(home.home, 'bad.jsonl'), '--json'])
      assertJsonError(r, 'invalid_input', 2)
      const body = JSON.parse(r.stdout) as {error: {rejected: {line: number}[]; skipped: number}}
      assert.deepEqual(
        body.error.rejected.map((l) => l.line),
        [1, 2],
      )
      assert.equal(body.error.skipped, 0)
      assert.equal(mem(home.home, ['agents', '--json']).stdout, '{"count":0,"agents":[],"unreadable":[]}\n')
    })

    it('usage errors and an unknown agent are error objects with their exit codes', () => {
      assertJsonError(mem(home.home, ['import', '--json']), 'invalid_input', 2)
      assertJsonError(mem(home.home, ['import', '-', '--agent', 'bad id!', '--json'], {input: ''}), 'invalid_input', 2)
      assertJsonError(mem(home.home, ['export', '--agent', 'alice', '--all', '--json']), 'invalid_input', 2)
      const missing = assertJsonError(mem(home.home, ['export', '--agent', 'nobody', '--json']), 'not_found', 3)
      assert.match(missing.message, /No agent "nobody"/)
    })
  })

  describe('mem mcp config and mem mcp install', () => {
    it('--json prints the entries and the change their output schemas declare', () => {
      const stdio = mem(home.home, ['mcp', 'config', '--json'])
      assert.equal(stdio.code, 0, stdio.stderr)
      assertPayload(stdio, mcpConfig.output)
      const http = mem(home.home, ['mcp', 'config', '--http', '--json'])
      assert.equal(http.code, 0, http.stderr)
      assertPayload(http, mcpConfig.output)

      const file = join(home.home, 'client.json')
      const installed = mem(home.home, ['mcp', 'install', '--client', 'cursor', '--config-file', file, '--json'])
      assert.equal(installed.code, 0, installed.stderr)
      assert.equal(assertPayload(installed, mcpInstall.output).created, true)
    })

    it('usage errors are error objects, exit 2, and change no file', () => {
      assertJsonError(mem(home.home, ['mcp', 'config', '--url', 'http://x/mcp', '--json']), 'invalid_input', 2)
      assertJsonError(mem(home.home, ['mcp', 'config', '--client', 'emacs', '--json']), 'invalid_input', 2)
      assertJsonError(mem(home.home, ['mcp', 'install', '--json']), 'invalid_input', 2)
      const file = join(home.home, 'client.json')
      writeFileSync(file, '{"mcpServers": {}, // mine\n}')
      const r = mem(home.home, ['mcp', 'install', '--client', 'cursor', '--config-file', file, '--json'])
      assert.match(assertJsonError(r, 'invalid_input', 2).message, /not plain JSON/)
      assert.equal(readFileSync(file, 'utf8'), '{"mcpServers": {}, // mine\n}')
    })

    it('an agent id the server would refuse is refused before it is written into a config', () => {
      const error = assertJsonError(
        mem(home.home, ['mcp', 'config', '--agent', 'bad id!', '--json']),
        'invalid_input',
        2,
      )
      assert.match(error.message, /^invalid input: --agent: /)
      const file = join(home.home, 'client.json')
      const r = mem(home.home, ['mcp', 'install', '--client', 'cursor', '--config-file', file, '--agent', 'bad id!'])
      assert.equal(r.code, 2, r.stdout)
      assert.throws(() => readFileSync(file), /ENOENT/)
    })
  })
})
