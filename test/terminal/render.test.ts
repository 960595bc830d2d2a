import assert from 'node:assert/strict'

import {highlight} from '../../src/cli/render-highlight.js'
import {relativeTime} from '../../src/cli/render-time.js'
import {
  renderAgents,
  renderCheckpoints,
  renderHistory,
  renderList,
  renderResume,
  renderSearch,
} from '../../src/cli/render.js'
import {unstyled, wantsStyle} from '../../src/cli/terminal-style.js'

const NOW = new Date('2026-06-15T12:00:00.000Z')
const ESC = '\u001B'
const A = '01JDQ3N7X2C9V5K8M4T6R0B1AZ'
const B = '01JDQ3P0A7Z3Y1X9W5V2T8S4RQ'

describe('terminal rendering (fixed payloads, fixed now)', () => {
  it('search: aligned ids, relative dates, matched words highlighted, tags coloured', () => {
    const out = renderSearch(
      {
        agent_id: 'alice',
        query: 'deploy steps',
        count: 2,
        facts: [
          {id: A, content: 'Deploys need two steps', tags: ['ops'], created_at: '2026-06-12T09:00:00.000Z', score: 3.2},
          {id: B, content: 'Lunch at noon', tags: [], created_at: '2026-06-15T11:59:30.000Z', score: 1},
        ],
      },
      NOW,
    )
    const hit = (w: string) => `${ESC}[1m${ESC}[33m${w}${ESC}[39m${ESC}[22m`
    assert.equal(
      out,
      [
        `${ESC}[1m2 facts${ESC}[22m for ${ESC}[1m"deploy steps"${ESC}[22m ${ESC}[2m· agent alice${ESC}[22m`,
        `  ${ESC}[2m1.${ESC}[22m  ${ESC}[2m${A}${ESC}[22m  ${ESC}[32m3 days ago${ESC}[39m  ${hit('Deploys')} need two ${hit('steps')} ${ESC}[36m#ops${ESC}[39m`,
        `  ${ESC}[2m2.${ESC}[22m  ${ESC}[2m${B}${ESC}[22m  ${ESC}[32mjust now${ESC}[39m    Lunch at noon`,
      ].join('\n'),
    )
  })

  it('search with explain: a dim line under each fact says which words it matched and how', () => {
    const out = renderSearch(
      {
        agent_id: 'alice',
        query: 'kube deploys',
        count: 2,
        facts: [
          {
            id: A,
            content: 'The kubernetes cluster was deployed',
            tags: [],
            created_at: '2026-06-12T09:00:00.000Z',
            score: 3.2,
            matched: [
              {word: 'kube', how: 'prefix', fact_word: 'kubernetes'},
              {word: 'deploys', how: 'stem', fact_word: 'deployed'},
            ],
          },
          {
            id: B,
            content: 'in the hall',
            tags: [],
            created_at: '2026-06-12T09:00:00.000Z',
            score: 1,
            context_for: A,
            matched: [],
          },
        ],
      },
      NOW,
    )
    const lines = out.split('\n')
    assert.equal(lines.length, 5)
    assert.equal(lines[2], `      ${ESC}[2mmatched kube (prefix: kubernetes), deploys (stem: deployed)${ESC}[22m`)
    assert.equal(unstyled(lines[4]!), `      matched no word: context for ${A}`)
  })

  it('search: a hit that came as context is dimmed, not highlighted, and names the match it came with', () => {
    const out = renderSearch(
      {
        agent_id: 'alice',
        query: 'heater',
        count: 2,
        facts: [
          {id: A, content: 'which heater?', tags: [], created_at: '2026-06-15T11:59:30.000Z', score: 2, thread: 'flat'},
          {
            id: B,
            content: 'a Dimplex panel',
            tags: [],
            created_at: '2026-06-15T11:59:30.000Z',
            score: 1,
            thread: 'flat',
            context_for: A,
          },
        ],
      },
      NOW,
    )
    const lines = out.split('\n')
    assert.match(lines[1]!, new RegExp(`${ESC}\\[1m${ESC}\\[33mheater`))
    assert.equal(
      lines[2]!.endsWith(
        `${ESC}[2ma Dimplex panel${ESC}[22m ${ESC}[2m~flat${ESC}[22m  ${ESC}[35m↳ context for ${A}${ESC}[39m`,
      ),
      true,
      JSON.stringify(lines[2]),
    )
  })

  it('search with no hits says so', () => {
    assert.equal(
      unstyled(renderSearch({agent_id: 'alice', query: 'zebra', count: 0, facts: []}, NOW)),
      'No facts found for "zebra" · agent alice',
    )
    assert.equal(
      unstyled(renderSearch({agent_id: 'alice', query: 'what is it?', count: 0, facts: []}, NOW)),
      'No facts found for "what is it?" · agent alice\nIts words are all too common to search by: add a word the fact would hold.',
    )
    assert.equal(
      unstyled(renderSearch({agent_id: 'alice', query: '?!', count: 0, facts: []}, NOW)),
      'No facts found for "?!" · agent alice\nIt holds no letters or digits to search by.',
    )
  })

  it('list marks replaced and deleted versions', () => {
    const out = unstyled(
      renderList(
        {
          agent_id: 'alice',
          total: 5,
          count: 2,
          facts: [
            {
              id: B,
              content: 'Uses bun',
              tags: [],
              created_at: '2026-06-15T10:00:00.000Z',
              status: 'live',
              supersedes: [A],
            },
            {
              id: A,
              content: 'Uses npm',
              tags: ['tooling'],
              created_at: '2026-06-01T10:00:00.000Z',
              status: 'superseded',
              superseded_by: B,
              superseded_at: '2026-06-15T10:00:00.000Z',
            },
          ],
        },
        NOW,
      ),
    )
    assert.equal(
      out,
      [
        '2 of 5 facts · agent alice · newest first',
        `  ${B}  2 hours ago  Uses bun`,
        `  ${A}  2 weeks ago  Uses npm #tooling  replaced 2 hours ago by ${B}`,
      ].join('\n'),
    )
  })

  it('history, checkpoints and agents read as aligned tables with relative dates', () => {
    const history = unstyled(
      renderHistory(
        {
          agent_id: 'alice',
          fact_id: B,
          count: 2,
          versions: [
            {
              id: A,
              content: 'Uses npm',
              tags: [],
              created_at: '2026-06-01T10:00:00.000Z',
              status: 'superseded',
              superseded_by: B,
              superseded_at: '2026-06-15T10:00:00.000Z',
            },
            {
              id: B,
              content: 'Uses bun',
              tags: [],
              created_at: '2026-06-15T10:00:00.000Z',
              status: 'live',
              supersedes: [A],
              reason: 'switched',
            },
          ],
        },
        NOW,
      ),
    )
    assert.match(history, new RegExp(`^▸ ${B}  2 hours ago \\(2026-06-15T10:00:00.000Z\\)$`, 'm'))
    assert.match(history, /^ {4}reason: switched$/m)
    assert.match(history, new RegExp(`^ {4}replaced 2 hours ago by ${B}$`, 'm'))

    const checkpoints = unstyled(
      renderCheckpoints(
        {
          agent_id: 'alice',
          total: 2,
          count: 2,
          checkpoints: [
            {id: B, created_at: '2026-06-14T12:00:00.000Z', label: 'lunch', message_count: 1, state_keys: ['task']},
            {id: A, created_at: '2026-05-15T12:00:00.000Z', message_count: 12, state_keys: ['task', 'step']},
          ],
        },
        NOW,
      ),
    )
    assert.equal(
      checkpoints,
      [
        '2 checkpoints · agent alice · newest first',
        `  ${B}  yesterday   1 message    lunch  task`,
        `  ${A}  last month  12 messages  task, step`,
      ].join('\n'),
    )

    const agents = unstyled(
      renderAgents(
        {
          count: 2,
          agents: [
            {
              agent_id: 'alice',
              facts: 3,
              superseded: 1,
              deleted: 0,
              checkpoints: 2,
              last_activity: '2026-06-14T12:00:00.000Z',
            },
            {agent_id: 'bob-the-builder', facts: 10, superseded: 0, deleted: 2, checkpoints: 0},
          ],
          unreadable: [],
        },
        NOW,
      ),
    )
    assert.equal(
      agents,
      [
        'agent            live facts  history                checkpoints  last active',
        'alice            3           1 replaced, 0 deleted  2            yesterday',
        'bob-the-builder  10          0 replaced, 2 deleted  0            never',
      ].join('\n'),
    )
  })

  it('resume pretty-prints the state with coloured keys and strings', () => {
    const out = renderResume(
      {
        found: true,
        id: A,
        created_at: '2026-06-08T12:00:00.000Z',
        state: {task: 'a "quoted" thing', n: 1},
        message_count: 2,
        agent_id: 'alice',
      },
      NOW,
    )
    assert.ok(out.includes(`  ${ESC}[34m"task"${ESC}[39m: ${ESC}[32m"a \\"quoted\\" thing"${ESC}[39m,`), out)
    assert.ok(out.includes(`  ${ESC}[34m"n"${ESC}[39m: 1`), out)
    assert.equal(
      unstyled(out).split('\n').slice(4).join('\n'),
      JSON.stringify({task: 'a "quoted" thing', n: 1}, null, 2),
    )
    assert.match(unstyled(out), /^saved {4}last week \(2026-06-08T12:00:00.000Z\)$/m)
    assert.equal(
      unstyled(renderResume({agent_id: 'alice', found: false}, NOW)),
      'No checkpoint saved yet · agent alice; starting fresh',
    )
    const withMessages = renderResume(
      {
        found: true,
        id: A,
        created_at: '2026-06-08T12:00:00.000Z',
        state: {},
        message_count: 3,
        agent_id: 'alice',
        messages: [{role: 'user'}],
      },
      NOW,
    )
    assert.match(unstyled(withMessages), /\nLast 1 of 3 messages, oldest first:\n\{"role":"user"\}$/)
  })

  it('relative dates read naturally', () => {
    const at = (iso: string) => relativeTime(iso, NOW)
    assert.equal(at('2026-06-15T11:59:31.000Z'), 'just now')
    assert.equal(at('2026-06-15T11:55:00.000Z'), '5 minutes ago')
    assert.equal(at('2026-06-15T09:00:00.000Z'), '3 hours ago')
    assert.equal(at('2026-06-14T09:00:00.000Z'), 'yesterday')
    assert.equal(at('2026-06-12T12:00:00.000Z'), '3 days ago')
    assert.equal(at('2026-04-01T12:00:00.000Z'), '2 months ago')
    assert.equal(at('2024-06-01T12:00:00.000Z'), '2 years ago')
    assert.equal(at('not a date'), 'not a date')
  })

  it('highlights words that stem like the query words or start with one of 3+ letters, and nothing for stopword-only queries', () => {
    const marked = (text: string, q: string) =>
      highlight(text, q)
        .filter((s) => s.match)
        .map((s) => s.text)
    // "deployments" stems apart from "deploy" but starts with it, as search's prefix rule says.
    assert.deepEqual(marked("Caroline's researching deployments; she deployed twice", 'research deploy'), [
      'researching',
      'deployments',
      'deployed',
    ])
    assert.deepEqual(marked('Production runs on Kubernetes', 'kube'), ['Kubernetes'])
    assert.deepEqual(marked('Production runs on Kubernetes', 'ku'), [])
    assert.deepEqual(marked('Deployments happen weekly', 'deployment'), ['Deployments'])
    assert.deepEqual(marked('It is what it is', 'what is it'), [])
    assert.equal(
      highlight('a café', 'cafe')
        .map((s) => s.text)
        .join(''),
      'a café',
    )
    assert.deepEqual(marked('a café', 'cafe'), ['café'])
  })

  it('styles only for a terminal without NO_COLOR', () => {
    assert.equal(wantsStyle({isTTY: true}, {}), true)
    assert.equal(wantsStyle({isTTY: false}, {}), false)
    assert.equal(wantsStyle({}, {}), false)
    assert.equal(wantsStyle({isTTY: true}, {NO_COLOR: '1'}), false)
    assert.equal(wantsStyle({isTTY: true}, {NO_COLOR: ''}), true)
    assert.equal(wantsStyle({isTTY: true}, {TERM: 'dumb'}), false)
  })
})
