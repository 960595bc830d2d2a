import assert from 'node:assert/strict'

import {resolveTimePhrase} from '../../src/cli/time-phrases.js'
import {MemError} from '../../src/errors.js'
import {serveDuringSuite} from '../helpers/mcp.js'
import {validateAgainst} from '../helpers/schema.js'

/** Local midnight `days` before `now`, as the ISO string --since gets. */
function startOfDay(now: Date, days: number): string {
  return new Date(now.getFullYear(), now.getMonth(), now.getDate() - days).toISOString()
}

describe('--since / --until values', () => {
  const now = new Date(2026, 5, 15, 14, 30)

  it('passes ISO dates and times through unchanged', async () => {
    assert.equal(await resolveTimePhrase('2026-05-01', '--since', now), '2026-05-01')
    assert.equal(await resolveTimePhrase(' 2026-05-01T09:00:00+02:00 ', '--since', now), '2026-05-01T09:00:00+02:00')
    assert.equal(await resolveTimePhrase(undefined, '--since', now), undefined)
  })

  it('reads phrases; a day without a time means the start of that day', async () => {
    assert.equal(await resolveTimePhrase('yesterday', '--since', now), startOfDay(now, 1))
    assert.equal(await resolveTimePhrase('3 days ago', '--since', now), startOfDay(now, 3))
    assert.equal(await resolveTimePhrase('last week', '--since', now), startOfDay(now, 7))
    assert.equal(await resolveTimePhrase('today', '--until', now), startOfDay(now, 0))
    assert.equal(await resolveTimePhrase('2 hours ago', '--since', now), new Date(2026, 5, 15, 12, 30).toISOString())
    // At the command line a time without an offset is the person's own local time.
    assert.equal(await resolveTimePhrase('2026-05-01T09:00:00', '--since', now), new Date(2026, 4, 1, 9).toISOString())
  })

  it('refuses what is not wholly a date, naming the flag and what works', async () => {
    for (const bad of ['soonish', 'yesterday or so', 'next to nothing']) {
      await assert.rejects(
        resolveTimePhrase(bad, '--until', now),
        (e: unknown) =>
          e instanceof MemError &&
          e.code === 'invalid_input' &&
          e.message.startsWith(`--until ${JSON.stringify(bad)} is not a date`),
      )
    }
  })
})

describe('--since / --until: dates the calendar lacks, and names of days and months', () => {
  // A Monday.
  const now = new Date(2026, 5, 15, 14, 30)

  it('refuses an impossible date instead of rolling it over, saying what is wrong', async () => {
    const cases: [string, RegExp][] = [
      ['2026-13-01', /there is no month 13/],
      ['2026-02-30', /February 2026 has 28 days/],
      ['2024-02-30', /February 2024 has 29 days/],
      ['2026-04-31T10:00:00Z', /April 2026 has 30 days/],
      ['2026-00-10', /there is no month 0/],
    ]
    for (const [bad, why] of cases) {
      await assert.rejects(
        resolveTimePhrase(bad, '--since', now),
        (e: unknown) =>
          e instanceof MemError &&
          e.code === 'invalid_input' &&
          e.message.startsWith(`--since "${bad}" is not a real date: `) &&
          why.test(e.message),
        bad,
      )
    }
    assert.equal(await resolveTimePhrase('2024-02-29', '--since', now), '2024-02-29')
  })

  it('reads a weekday or a month name as the most recent past one, unless told "next"', async () => {
    assert.equal(await resolveTimePhrase('friday', '--since', now), new Date(2026, 5, 12).toISOString())
    assert.equal(await resolveTimePhrase('Sunday', '--since', now), new Date(2026, 5, 14).toISOString())
    assert.equal(await resolveTimePhrase('monday', '--since', now), new Date(2026, 5, 15).toISOString())
    assert.equal(await resolveTimePhrase('december', '--since', now), new Date(2025, 11, 1).toISOString())
    assert.equal(await resolveTimePhrase('march 5', '--since', now), new Date(2026, 2, 5).toISOString())
    assert.equal(await resolveTimePhrase('august 3', '--until', now), new Date(2025, 7, 3).toISOString())
    assert.equal(await resolveTimePhrase('this friday', '--until', now), new Date(2026, 5, 19).toISOString())
    assert.ok(
      Date.parse((await resolveTimePhrase('next friday', '--until', now))!) > now.getTime(),
      '"next" still looks ahead',
    )
  })
})

describe('memory_search since/until over MCP', () => {
  const suite = serveDuringSuite(['--agent', 'alice'])
  before(() => suite.mcp.call('memory_add', {content: 'Deploys happen on Tuesdays'}))

  it('advertises since and until as optional ISO 8601 strings', () => {
    const schema = suite.mcp.tools.find((t) => t.name === 'memory_search')!.inputSchema as {
      properties: Record<string, {type: string; description: string}>
      required?: string[]
    }
    for (const key of ['since', 'until']) {
      // A plain type, as for every optional input; an explicit null is still read as left out.
      assert.equal(schema.properties[key]?.type, 'string')
      assert.match(schema.properties[key]!.description, /ISO 8601/)
      assert.ok(!(schema.required ?? []).includes(key))
    }
    assert.deepEqual(
      suite.mcp.tools.map((t) => t.name),
      ['memory_search', 'memory_add', 'checkpoint_save', 'checkpoint_resume', 'memory_reflect'],
      'the CLI-only operations stay out of tools/list',
    )
  })

  it('filters by creation time: since inclusive, until exclusive', async () => {
    const found = async (args: Record<string, unknown>) => {
      const r = await suite.mcp.call('memory_search', {query: 'deploys', ...args})
      assert.notEqual(r.isError, true, JSON.stringify(r.content))
      const schema = suite.mcp.tools.find((t) => t.name === 'memory_search')!.outputSchema!
      assert.equal(validateAgainst(schema, r.structuredContent), undefined)
      return (r.structuredContent as {count: number}).count
    }
    const [fact] = (
      (await suite.mcp.call('memory_search', {query: 'deploys'})).structuredContent as {facts: {created_at: string}[]}
    ).facts
    assert.equal(await found({since: fact!.created_at}), 1)
    assert.equal(await found({until: fact!.created_at}), 0)
    assert.equal(await found({since: '2000-01-01', until: '2999-01-01T00:00:00Z'}), 1)
    assert.equal(await found({since: '2999-01-01'}), 0)
  })

  it('a since that is not an ISO 8601 date is a tool error naming the field', async () => {
    const r = await suite.mcp.call('memory_search', {query: 'deploys', since: 'yesterday'})
    assert.equal(r.isError, true)
    assert.equal(r.structuredContent, undefined)
    assert.match((r.content[0] as {text: string}).text, /since.*ISO 8601/)
  })

  it('an impossible date is a tool error, never rolled over to another day', async () => {
    const r = await suite.mcp.call('memory_search', {query: 'deploys', since: '2026-02-30'})
    assert.equal(r.isError, true)
    assert.match((r.content[0] as {text: string}).text, /since: is not a real date: February 2026 has 28 days/)
  })
})
