import assert from 'node:assert/strict'
import {chmodSync, mkdirSync} from 'node:fs'
import {join} from 'node:path'

import {doctor} from '../../src/doctor/doctor.js'
import {jsonSchemaOf} from '../../src/mcp/tools.js'
import {operations} from '../../src/ops/index.js'
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
    for (const op of [doctor]) assert.ok(!tools.includes(op.tool), op.tool)
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
})
