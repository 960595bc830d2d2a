import assert from 'node:assert/strict'

import {
  agentList,
  checkpointResume,
  checkpointSave,
  memoryAdd,
  memoryReflect,
  memorySearch,
} from '../../src/ops/index.js'

/** The prose is a contract for text-only clients and people: these strings are pinned. */
describe('prose (golden)', () => {
  const A = '01JDQ3N7X2C9V5K8M4T6R0B1AZ'
  const B = '01JDQ3P0A7Z3Y1X9W5V2T8S4RQ'
  const C = '01JDQ3Q5M1N2P3Q4R5S6T7V8WX'
  const T = '2026-11-30T09:15:00.000Z'

  it('memory_search: a numbered list with tags and ids', () => {
    const text = memorySearch.prose({
      agent_id: 'alice',
      query: 'package manager',
      count: 2,
      facts: [
        {id: A, content: 'Prefers pnpm as package manager', tags: ['tooling', 'js'], created_at: T, score: 3.2},
        {id: B, content: 'Uses npm in CI', tags: [], created_at: T, score: 1.1},
      ],
    })
    assert.equal(
      text,
      [
        'Found 2 facts for "package manager" (agent alice):',
        `1. Prefers pnpm as package manager [tooling, js] (id ${A})`,
        `2. Uses npm in CI (id ${B})`,
      ].join('\n'),
    )
  })

  it('memory_search: one fact, and none', () => {
    assert.equal(
      memorySearch.prose({
        agent_id: 'a',
        query: 'q',
        count: 1,
        facts: [{id: A, content: 'x', tags: [], created_at: T, score: 1}],
      }),
      `Found 1 fact for "q" (agent a):\n1. x (id ${A})`,
    )
    assert.equal(
      memorySearch.prose({agent_id: 'alice', query: 'zebra', count: 0, facts: []}),
      'No facts found for "zebra" (agent alice).',
    )
  })

  it('memory_search: a hit that came as context names the match it came with; other lines are unchanged', () => {
    const text = memorySearch.prose({
      agent_id: 'alice',
      query: 'heater',
      count: 2,
      facts: [
        {id: A, content: 'which heater?', tags: [], created_at: T, score: 2, thread: 'flat'},
        {id: B, content: 'a Dimplex panel', tags: ['home'], created_at: T, score: 1, thread: 'flat', context_for: A},
      ],
    })
    assert.equal(
      text,
      [
        'Found 2 facts for "heater" (agent alice):',
        `1. which heater? (id ${A})`,
        `2. a Dimplex panel [home] (id ${B}; context for ${A})`,
      ].join('\n'),
    )
  })

  it('memory_add and checkpoint_save: one sentence', () => {
    assert.equal(
      memoryAdd.prose({agent_id: 'alice', stored: true, fact_id: A, duplicate: false}),
      `Stored fact ${A} for agent alice.`,
    )
    assert.equal(
      memoryAdd.prose({agent_id: 'alice', stored: true, fact_id: A, duplicate: true}),
      `Fact ${A} of agent alice already says this; nothing new was stored.`,
    )
    assert.equal(
      checkpointSave.prose({agent_id: 'alice', checkpoint_id: A, created_at: T}),
      `Saved checkpoint ${A} for agent alice at ${T}.`,
    )
  })

  it('checkpoint_resume: a block with the state as indented JSON', () => {
    const text = checkpointResume.prose({
      found: true,
      id: A,
      created_at: T,
      state: {step: 3, todo: ['x']},
      message_count: 2,
      label: 'mid-task',
      agent_id: 'alice',
    })
    const block = [
      `Checkpoint ${A} (agent alice)`,
      `Saved: ${T}`,
      'Label: mid-task',
      'Messages: 2',
      'State:',
      '{',
      '  "step": 3,',
      '  "todo": [',
      '    "x"',
      '  ]',
      '}',
    ]
    assert.equal(text, block.join('\n'))
    const messages = [
      {role: 'user', content: 'hi'},
      {role: 'assistant', content: 'hello'},
    ]
    const withAll = checkpointResume.prose({
      found: true,
      id: A,
      created_at: T,
      state: {step: 3, todo: ['x']},
      message_count: 2,
      label: 'mid-task',
      agent_id: 'alice',
      messages,
    })
    assert.equal(
      withAll,
      [
        ...block,
        'Messages, oldest first:',
        '{"role":"user","content":"hi"}',
        '{"role":"assistant","content":"hello"}',
      ].join('\n'),
    )
    const withLast = checkpointResume.prose({
      found: true,
      id: A,
      created_at: T,
      state: {step: 3, todo: ['x']},
      message_count: 2,
      label: 'mid-task',
      agent_id: 'alice',
      messages: messages.slice(-1),
    })
    assert.equal(
      withLast,
      [...block, 'Last 1 of 2 messages, oldest first:', '{"role":"assistant","content":"hello"}'].join('\n'),
    )
  })

  it('checkpoint_resume: messages asked for and none saved: no empty heading', () => {
    const text = checkpointResume.prose({
      found: true,
      id: A,
      created_at: T,
      state: {},
      message_count: 0,
      agent_id: 'alice',
      messages: [],
    })
    assert.equal(text, [`Checkpoint ${A} (agent alice)`, `Saved: ${T}`, 'Messages: 0', 'State:', '{}'].join('\n'))
  })

  it('agent_list: live facts counted as such, the replaced and deleted ones on top, one or many', () => {
    const text = agentList.prose({
      count: 3,
      agents: [
        {agent_id: 'alice', facts: 2, superseded: 3, deleted: 1, checkpoints: 1, last_activity: T},
        {agent_id: 'bob', facts: 1, superseded: 0, deleted: 0, checkpoints: 0},
        {agent_id: 'carol', facts: 0, superseded: 0, deleted: 2, checkpoints: 2, last_activity: T},
      ],
      unreadable: [],
    })
    assert.equal(
      text,
      [
        '3 agents:',
        `- alice: 2 live facts (plus 3 replaced, 1 deleted), 1 checkpoint, last active ${T}`,
        '- bob: 1 live fact, 0 checkpoints',
        `- carol: 0 live facts (plus 2 deleted), 2 checkpoints, last active ${T}`,
      ].join('\n'),
    )
    assert.equal(
      agentList.prose({
        count: 1,
        agents: [{agent_id: 'a', facts: 1, superseded: 1, deleted: 0, checkpoints: 1}],
        unreadable: [],
      }),
      '1 agent:\n- a: 1 live fact (plus 1 replaced), 1 checkpoint',
    )
  })

  it('checkpoint_resume: the absence branch', () => {
    assert.equal(
      checkpointResume.prose({agent_id: 'alice', found: false}),
      'No checkpoint saved yet for agent alice; starting fresh.',
    )
  })

  it('memory_reflect: one sentence per action', () => {
    assert.equal(
      memoryReflect.prose({action: 'add', agent: 'alice', agent_id: 'alice', ok: true, fact_id: A}),
      `Added fact ${A} for agent alice.`,
    )
    assert.equal(
      memoryReflect.prose({action: 'add', agent: 'alice', agent_id: 'alice', ok: true, fact_id: A, duplicate: true}),
      `Fact ${A} of agent alice already says this; nothing new was stored.`,
    )
    assert.equal(
      memoryReflect.prose({action: 'delete', agent: 'alice', agent_id: 'alice', ok: true, fact_id: A}),
      `Deleted fact ${A} for agent alice.`,
    )
    assert.equal(
      memoryReflect.prose({action: 'update', agent: 'alice', agent_id: 'alice', ok: true, fact_id: B, supersedes: [A]}),
      `Updated fact ${A}: the new version is ${B} (agent alice).`,
    )
    assert.equal(
      memoryReflect.prose({
        action: 'merge',
        agent: 'alice',
        agent_id: 'alice',
        ok: true,
        fact_id: C,
        supersedes: [A, B],
      }),
      `Merged facts ${A}, ${B} into ${C} (agent alice).`,
    )
  })
})
