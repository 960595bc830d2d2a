import assert from 'node:assert/strict'

import fc from 'fast-check'

import {DEFAULT_TUNING, FactIndex, type IndexedFact} from '../../src/search/fact-index.js'
import {ReferenceIndex} from './reference.js'

/** Standalone facts (no thread, so no context between them), hours apart. */
function spaced(contents: string[], start = Date.UTC(2024, 0, 1)): IndexedFact[] {
  return contents.map((content, i) => ({
    id: `F${String(i).padStart(4, '0')}`,
    content,
    tags: [],
    created_at: new Date(start + i * 6 * 3600_000).toISOString(),
  }))
}

function indexOf(facts: IndexedFact[], tuning = {}): FactIndex {
  const index = new FactIndex(tuning)
  for (const f of facts) index.add(f)
  return index
}

const FACTS = spaced([
  'Caroline researched adoption agencies that support LGBTQ families.',
  'Melanie painted a sunrise over the lake last summer.',
  'The team decided to use PostgreSQL for the billing service.',
  "Jon's dance studio opened on Friday with a contemporary class.",
  'The user prefers dark mode and short answers.',
  'Deploys go out on Tuesdays after the integration tests pass.',
  'Nate keeps three turtles and feeds them every morning.',
  'Gina lost her job at Door Dash and started an online clothing store.',
])

function top(index: FactIndex, query: string): string | undefined {
  return index.search(query, {limit: 5})[0]?.id
}

describe('FactIndex ranking', () => {
  const index = indexOf(FACTS)

  it('puts the relevant fact first for paraphrased queries (stems, plurals, possessives)', () => {
    assert.equal(top(index, 'Which adoption agency did Caroline research?'), 'F0000')
    assert.equal(top(index, 'paintings of sunrises'), 'F0001')
    assert.equal(top(index, 'what database was chosen for billing?'), 'F0002')
    assert.equal(top(index, 'Jon dancing studios'), 'F0003')
    assert.equal(top(index, 'does the user prefer dark themes?'), 'F0004')
    assert.equal(top(index, 'when do we deploy'), 'F0005')
    assert.equal(top(index, "Nate's turtle feeding"), 'F0006')
    assert.equal(top(index, 'Gina clothes store'), 'F0007')
  })

  it('finds a fact despite a typo in a longer word', () => {
    assert.equal(top(index, 'integraton tests'), 'F0005')
  })

  it('matches one typo from four letters, two from eight, and a transposition as one', () => {
    const typos = indexOf(
      spaced([
        'We deploy with Terraform',
        'Prefers pnpm',
        'The coffee machine is on floor three',
        'Lunch is at noon',
        'the migration finished',
      ]),
    )
    for (const [query, want] of [
      ['terrafrom', 'F0000'],
      ['pnmp', 'F0001'],
      ['coffe', 'F0002'],
      ['lnch', 'F0003'],
      ['migratoin', 'F0004'],
      ['migraton', 'F0004'],
    ] as const) {
      assert.equal(top(typos, query), want, query)
    }
    // Three letters is too short for a typo (but not for a prefix), seven too short for two.
    assert.equal(top(typos, 'pnp'), 'F0001')
    assert.equal(top(typos, 'lnc'), undefined)
    assert.equal(top(typos, 'migrtn'), undefined)
    // Numbers have no typos.
    assert.equal(top(indexOf(spaced(['released in 2024'])), '2023'), undefined)
  })

  it('corrects a typo to a word some fact writes, never to a bare stem, then matches that word by stem', () => {
    const words = indexOf(spaced(['Their stories were long', 'He went riding at dawn', 'We connected the racks']))
    // "store" is one letter from "stori", the stem of "stories", but two from the word; "hide" is
    // one from "ride", the stem of "riding", which no fact writes.
    assert.equal(top(words, 'store'), undefined)
    assert.equal(top(words, 'hide'), undefined)
    assert.equal(top(words, 'storis'), 'F0000')
    assert.equal(top(words, 'ridng'), 'F0001')
    // A word written in one fact is a typo target that reaches its stem in the others.
    words.add({id: 'F0003', content: 'Connecting the racks took a day', tags: [], created_at: '2024-02-01T00:00:00Z'})
    assert.deepEqual(
      words
        .search('conecting', {limit: 5})
        .map((h) => h.id)
        .sort(),
      ['F0002', 'F0003'],
    )
    assert.equal(top(words, 'store'), undefined)
    // The same after a round trip through the saved form.
    const loaded = FactIndex.fromCompact(words.toCompact())
    assert.equal(top(loaded, 'store'), undefined)
    assert.equal(top(loaded, 'storis'), 'F0000')
  })

  it('matches the words a query word of three letters or more starts; a word being typed from its first letter', () => {
    const words = indexOf(spaced(['Cluster runs Kubernetes', 'Dashboards live in Grafana', 'Lunch is at noon']))
    assert.equal(top(words, 'kube'), 'F0000')
    assert.equal(top(words, 'graf'), 'F0001')
    assert.equal(top(words, 'gr'), undefined)
    assert.deepEqual(
      words.search('gr', {limit: 5, partial: true}).map((h) => h.id),
      ['F0001'],
    )
    // A finished word (a space after it) is not a prefix; a stopword being typed is.
    assert.deepEqual(words.search('gr ', {limit: 5, partial: true}), [])
    assert.deepEqual(
      words.search('no', {limit: 5, partial: true}).map((h) => h.id),
      ['F0002'],
    )
  })

  it('ranks exact matches above looser ones, even when the looser word is rarer', () => {
    const cars = indexOf(spaced([...Array.from({length: 20}, (_, i) => `the car number ${i}`), 'a carburetor part']))
    const hits = cars.search('car', {limit: 25})
    assert.equal(hits.length, 21)
    assert.equal(hits.at(-1)?.id, 'F0020', 'the prefix match comes last')
    assert.ok(hits.at(-2)!.score > hits.at(-1)!.score)
  })

  it("weighs a word's rarity twice (idf squared): a rare word outranks a common one and an ordinary one", () => {
    // Alice is in 8 of 20 facts, "class" in 4, "pottery" in one; every fact is two words long.
    const contents = [
      'Alice class',
      'Bob pottery',
      ...['Alice tennis', 'Alice chess', 'Alice piano', 'Alice hiking', 'Alice sailing', 'Alice baking', 'Alice yoga'],
      ...['Carol class', 'Dave class', 'Erin class'],
      ...[
        'Frank golf',
        'Grace opera',
        'Heidi kayak',
        'Ivan poker',
        'Judy karate',
        'Ken rugby',
        'Liam surf',
        'Mia jazz',
      ],
    ]
    const facts = spaced(contents)
    const query = 'Alice pottery class'
    // BM25's single idf: the common name and an ordinary word, two terms, win.
    assert.equal(top(indexOf(facts, {idfPower: 1}), query), 'F0000')
    // Squared, the rare word counts for more than both.
    assert.equal(DEFAULT_TUNING.idfPower, 2)
    assert.equal(top(indexOf(facts), query), 'F0001')
  })

  it('scores are positive, finite and in non-increasing order', () => {
    const hits = index.search('the team and the user and the tests', {limit: 10})
    assert.ok(hits.length > 1)
    for (const h of hits) assert.ok(Number.isFinite(h.score) && h.score > 0)
    for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1]!.score >= hits[i]!.score)
  })

  it('returns nothing, without throwing, for stopword-only or empty queries', () => {
    for (const q of ['', '   ', 'the', 'What is it?', 'and or but', "isn't it", '?!', '🙂']) {
      assert.deepEqual(index.search(q, {limit: 10}), [], JSON.stringify(q))
    }
  })

  it('returns nothing for a word no fact holds', () => {
    assert.deepEqual(index.search('xylophone', {limit: 10}), [])
  })

  it('honours limit, including 0 and non-integers', () => {
    assert.equal(index.search('the', {limit: 10}).length, 0)
    assert.equal(index.search('Caroline Melanie Jon Nate Gina user team', {limit: 3}).length, 3)
    assert.equal(index.search('Caroline', {limit: 0}).length, 0)
    assert.equal(index.search('Caroline', {limit: 2.7}).length, 1)
    assert.equal(index.search('Caroline', {limit: Number.NaN}).length, 0)
  })
})

describe('FactIndex: words that say little', () => {
  const facts = spaced([
    'Carol uses Neovim as her editor',
    'Bob still uses yarn in the billing monorepo',
    'The office VPN uses WireGuard',
    'Handover notes go in the ops channel',
    'Deploys go out on Tuesdays',
    'Carol went to the offsite in Lisbon',
  ])
  const ids = (hits: {id: string}[]) => hits.map((h) => h.id)

  it('leaves out facts matched only by a weak verb while others match the informative words', () => {
    const index = indexOf(facts)
    assert.deepEqual(ids(index.search('which editor does carol use', {limit: 10})), ['F0000', 'F0005'])
    assert.deepEqual(ids(index.search('when do deploys go out', {limit: 10})), ['F0004'])
    // Switched off, the weak verb brings them back.
    const all = indexOf(facts, {weakWords: []}).search('which editor does carol use', {limit: 10})
    assert.equal(all.length, 4)
  })

  it('a query of weak verbs only is a search for them', () => {
    const index = indexOf(facts)
    assert.deepEqual(ids(index.search('go', {limit: 10})).sort(), ['F0003', 'F0004', 'F0005'])
    assert.equal(index.search('uses', {limit: 10}).length, 3)
  })

  it('a word being typed is never weak; a word in more than commonShare of the facts is, when asked for', () => {
    // "us", being typed, reaches "uses": the facts it alone matches stay.
    assert.deepEqual(ids(indexOf(facts).search('carol us', {limit: 10, partial: true})).sort(), [
      'F0000',
      'F0001',
      'F0002',
      'F0005',
    ])
    // "carol" is in 2 of 6 facts: common above a share of 0.3, so "lisbon" decides alone.
    const common = indexOf(facts, {commonShare: 0.3})
    assert.deepEqual(ids(common.search('carol lisbon', {limit: 10})), ['F0005'])
    assert.deepEqual(ids(indexOf(facts).search('carol lisbon', {limit: 10})), ['F0005', 'F0000'])
  })
})

describe('FactIndex filters', () => {
  const facts: IndexedFact[] = [
    {id: 'A', content: 'coffee with oat milk', tags: ['food', 'morning'], created_at: '2024-01-01T08:00:00.000Z'},
    {id: 'B', content: 'coffee beans from Ethiopia', tags: ['food'], created_at: '2024-02-01T08:00:00.000Z'},
    {
      id: 'C',
      content: 'coffee meeting with the design team',
      tags: ['work', 'morning'],
      created_at: '2024-03-01T08:00:00.000Z',
    },
  ]
  const index = indexOf(facts)
  const ids = (hits: {id: string}[]) => hits.map((h) => h.id).sort()

  it('tag filtering requires every listed tag', () => {
    assert.deepEqual(ids(index.search('coffee', {limit: 10, tags: ['food']})), ['A', 'B'])
    assert.deepEqual(ids(index.search('coffee', {limit: 10, tags: ['morning']})), ['A', 'C'])
    assert.deepEqual(ids(index.search('coffee', {limit: 10, tags: ['food', 'morning']})), ['A'])
    assert.deepEqual(ids(index.search('coffee', {limit: 10, tags: ['food', 'work']})), [])
    assert.deepEqual(ids(index.search('coffee', {limit: 10, tags: []})), ['A', 'B', 'C'])
  })

  it('tags are searchable words too', () => {
    assert.equal(index.search('work', {limit: 10})[0]?.id, 'C')
  })

  it('since is inclusive and until exclusive', () => {
    assert.deepEqual(ids(index.search('coffee', {limit: 10, since: '2024-02-01T08:00:00.000Z'})), ['B', 'C'])
    assert.deepEqual(ids(index.search('coffee', {limit: 10, until: '2024-02-01T08:00:00.000Z'})), ['A'])
    assert.deepEqual(
      ids(index.search('coffee', {limit: 10, since: '2024-01-15T00:00:00Z', until: '2024-02-15T00:00:00Z'})),
      ['B'],
    )
    assert.deepEqual(ids(index.search('coffee', {limit: 10, since: 'not a date'})), [])
  })
})

describe('FactIndex order and updates', () => {
  it('orders ties newest first, then by id descending', () => {
    const facts: IndexedFact[] = [
      {id: 'a1', content: 'blue bicycle', tags: [], created_at: '2024-01-01T00:00:00.000Z'},
      {id: 'a3', content: 'blue bicycle', tags: [], created_at: '2024-01-03T00:00:00.000Z'},
      {id: 'a2', content: 'blue bicycle', tags: [], created_at: '2024-01-02T00:00:00.000Z'},
      {id: 'b1', content: 'blue bicycle', tags: [], created_at: '2024-01-05T00:00:00.000Z', thread: 'b'},
      {id: 'b2', content: 'blue bicycle', tags: [], created_at: '2024-01-05T00:00:00.000Z', thread: 'b'},
    ]
    const flat = indexOf(facts, {context: 0}).search('bicycle', {limit: 10})
    assert.deepEqual(
      flat.map((h) => h.id),
      ['b2', 'b1', 'a3', 'a2', 'a1'],
    )
    assert.equal(new Set(flat.map((h) => h.score)).size, 1)
    // With context, b1 and b2 (one thread) also lend each other score: they still tie, above the a's.
    const hits = indexOf(facts).search('bicycle', {limit: 10})
    assert.deepEqual(
      hits.map((h) => h.id),
      ['b2', 'b1', 'a3', 'a2', 'a1'],
    )
    assert.equal(hits[0]!.score, hits[1]!.score)
    assert.ok(hits[1]!.score > hits[2]!.score)
    // The same order whatever the insertion order.
    const reversed = indexOf([...facts].reverse(), {context: 0}).search('bicycle', {limit: 10})
    assert.deepEqual(reversed, flat)
  })

  it('remove() drops a fact from results, size and has()', () => {
    const index = indexOf(FACTS)
    assert.equal(top(index, 'turtles'), 'F0006')
    index.remove('F0006')
    assert.equal(index.has('F0006'), false)
    assert.equal(index.size, FACTS.length - 1)
    assert.deepEqual(index.search('turtles', {limit: 10}), [])
    index.remove('F0006') // removing twice is harmless
    index.remove('never-added')
    assert.equal(index.size, FACTS.length - 1)
  })

  it('adding an existing id replaces its content', () => {
    const index = indexOf(FACTS)
    index.add({...FACTS[6]!, content: 'Nate adopted a parrot'})
    assert.equal(index.size, FACTS.length)
    assert.deepEqual(index.search('turtles', {limit: 10}), [])
    assert.equal(top(index, 'parrot'), 'F0006')
  })

  it('a fact replaced under its id scores as if it had been added that way', () => {
    // Words the fact shares with others keep postings of other facts, where a stale entry of the
    // edited fact's own could linger and count twice.
    const facts = spaced([...FACTS.map((f) => f.content), 'Nate feeds the turtles on Fridays.'])
    const edited = {...facts[6]!, content: 'Nate keeps three parrots and feeds them every morning.'}
    const index = indexOf(facts)
    index.add(edited)
    const fresh = indexOf(facts.map((f) => (f.id === edited.id ? edited : f)))
    for (const q of ['parrots morning', 'feeds them', 'Nate', 'turtles'])
      assert.deepEqual(index.search(q, {limit: 5}), fresh.search(q, {limit: 5}), q)
  })

  it('removing and re-adding every fact leaves an index that ranks like a fresh one', () => {
    const index = indexOf(FACTS)
    for (const f of FACTS) index.remove(f.id)
    assert.equal(index.size, 0)
    assert.deepEqual(index.search('Caroline', {limit: 5}), [])
    for (const f of FACTS) index.add(f)
    const fresh = indexOf(FACTS)
    for (const q of ['Caroline adoption', 'dark mode', 'tests deploy Tuesday'])
      assert.deepEqual(index.search(q, {limit: 5}), fresh.search(q, {limit: 5}))
  })
})

describe('FactIndex context and dates', () => {
  const at = (minutes: number) => new Date(Date.UTC(2024, 4, 1, 12, minutes)).toISOString()
  const talk = [
    {id: '1', content: 'Our son got into a car accident on the road trip.', tags: [], created_at: at(0)},
    {id: '2', content: 'They were scared, but we reassured them and they are fine now.', tags: [], created_at: at(1)},
    {id: '3', content: 'Unrelated: the printer on floor two is broken.', tags: [], created_at: at(2)},
    {id: '4', content: 'Three turns later we talked about the weather.', tags: [], created_at: at(3)},
  ]

  it('the turns around a match in its thread come with it, marked as its context', () => {
    const index = indexOf([
      ...talk.map((f) => ({...f, thread: 'trip'})),
      {id: '5', content: 'A standalone fact saved a minute later.', tags: [], created_at: at(4)},
    ])
    const hits = index.search('how did the kids handle the accident?', {limit: 10})
    assert.deepEqual(
      hits.map((h) => [h.id, h.contextFor]),
      [
        ['1', undefined],
        ['2', '1'],
        ['3', '1'],
      ],
    )
    assert.ok(
      hits[0]!.score > hits[1]!.score && hits[1]!.score > hits[2]!.score,
      'the match stays above the context it lends, nearer turns above farther ones',
    )
    assert.equal(
      indexOf(
        talk.map((f) => ({...f, thread: 'trip'})),
        {context: 0},
      ).search('accident', {limit: 5}).length,
      1,
    )
  })

  it('facts without a thread neither lend nor borrow, however close in time', () => {
    const hits = indexOf(talk).search('how did the kids handle the accident?', {limit: 10})
    assert.deepEqual(
      hits.map((h) => [h.id, h.contextFor]),
      [['1', undefined]],
    )
    // Nor does a thread lend to standalone facts or to another thread.
    const mixed = indexOf([{...talk[0]!, thread: 'a'}, talk[1]!, {...talk[2]!, thread: 'b'}])
    assert.deepEqual(
      mixed.search('accident', {limit: 10}).map((h) => h.id),
      ['1'],
    )
  })

  it('orders a thread by created_at then id, whatever order its facts arrived in', () => {
    const shuffled = [talk[3]!, talk[0]!, talk[2]!, talk[1]!].map((f) => ({...f, thread: 'trip'}))
    const inOrder = indexOf(talk.map((f) => ({...f, thread: 'trip'})))
    const late = indexOf(shuffled)
    for (const q of ['accident', 'printer broken', 'weather', 'scared'])
      assert.deepEqual(late.search(q, {limit: 10}), inOrder.search(q, {limit: 10}), q)
    // Equal times: the id decides.
    const same = indexOf(
      ['c', 'a', 'b'].map((id) => ({
        id,
        content: id === 'b' ? 'the accident' : `turn ${id}`,
        tags: [],
        created_at: at(0),
        thread: 't',
      })),
    )
    assert.deepEqual(
      same.search('accident', {limit: 5}).map((h) => [h.id, h.contextFor]),
      [
        ['b', undefined],
        ['c', 'b'],
        ['a', 'b'],
      ],
    )
    // A removed turn closes the gap; its neighbours become each other's.
    late.remove('2')
    assert.deepEqual(
      late.search('accident', {limit: 10}).map((h) => h.id),
      ['1', '3', '4'],
    )
  })

  it("the fact after a question, its reply, gets the question's whole score as context", () => {
    const facts = [
      {
        id: 'q',
        content: "What concert was it, at your daughter's birthday?",
        tags: [],
        created_at: at(0),
        thread: 'chat',
      },
      {id: 'a', content: 'It was Matt Patterson, he is so talented!', tags: [], created_at: at(1), thread: 'chat'},
      {id: 'u', content: 'The printer on floor two is broken again.', tags: [], created_at: at(2), thread: 'chat'},
    ]
    const index = new FactIndex()
    for (const f of facts) index.add(f)
    const hits = index.search("Who performed at the concert for the daughter's birthday?", {limit: 3})
    assert.equal(hits[0]?.id, 'a', 'the reply ranks first: ties go to the newer fact')
    const byId = new Map(hits.map((h) => [h.id, h.score]))
    assert.ok(byId.get('a')! >= byId.get('q')!)
    // Without the rule the reply gets half, like any neighbour, and falls below the question.
    const plain = new FactIndex({replyShare: DEFAULT_TUNING.context})
    for (const f of facts) plain.add(f)
    assert.notEqual(plain.search("Who performed at the concert for the daughter's birthday?", {limit: 3})[0]?.id, 'a')
  })

  it('a turn that tells, then asks about something else, keeps its score: its reply gets the usual half', () => {
    const index = new FactIndex()
    index.add({
      id: 'told',
      content: 'I bought a coffee maker three weeks ago. Any cleaning tips?',
      tags: [],
      created_at: at(0),
      thread: 'chat',
    })
    index.add({
      id: 'reply',
      content: 'Descale it monthly with vinegar and water.',
      tags: [],
      created_at: at(1),
      thread: 'chat',
    })
    const when = index.search('When did I buy the coffee maker?', {limit: 2})
    assert.deepEqual(
      when.map((h) => h.id),
      ['told', 'reply'],
    )
    // Half, to the 4 places scores are rounded to.
    assert.ok(Math.abs(when[1]!.score - when[0]!.score / 2) <= 1e-4, `${when[1]!.score} is half of ${when[0]!.score}`)
    // Asked about what the question asks, the reply gets its whole score (and ranks first, as the newer).
    assert.equal(top(index, 'coffee maker cleaning tips'), 'reply')
  })

  it("the closing question's words are no words of the fact: they add no length and no typo reaches them", () => {
    const index = new FactIndex()
    index.add({id: 'asks', content: 'Any plans for adventures?', tags: [], created_at: at(0)})
    index.add({id: 'tells', content: 'Any plans for adventures.', tags: [], created_at: at(0)})
    // `adventurr`, in no fact, is two edits from the closing question's `?adventur` as well as one from `adventur`.
    for (const query of ['adventures', 'plans', 'adventurr']) {
      const [a, b] = index.search(query, {limit: 2})
      assert.ok(a !== undefined && b !== undefined, query)
      assert.equal(a.score, b.score, query)
    }
  })

  it('boosts facts created on a date the query spells out', () => {
    const index = new FactIndex()
    index.add({id: 'may', content: 'We went hiking in the hills.', tags: [], created_at: '2023-05-20T10:00:00.000Z'})
    index.add({id: 'june', content: 'We went hiking in the hills.', tags: [], created_at: '2023-06-20T10:00:00.000Z'})
    assert.equal(top(index, 'hiking'), 'june')
    assert.equal(top(index, 'Where did we go hiking in May 2023?'), 'may')
    assert.equal(top(index, 'What happened on 20 May, 2023?'), undefined)
    assert.equal(index.search('hiking on 20 May 2023', {limit: 2})[0]?.id, 'may')
  })
})

describe('FactIndex serialisation', () => {
  const queries = [
    'Caroline',
    'adoption agencies',
    'the user',
    'dance Friday',
    'turtles morning',
    'store',
    'what is it',
    'coffee',
  ]

  /** An index that has seen a removal and later facts, one of them a question and its reply. */
  const changedIndex = (): FactIndex => {
    const index = indexOf(FACTS)
    index.remove('F0003')
    index.add({
      id: 'X',
      content: 'Caroline went to a pride parade',
      tags: ['event'],
      created_at: '2024-01-01T01:00:00.000Z',
    })
    index.add({
      id: 'Q',
      content: 'Which store sells coffee in the morning?',
      tags: [],
      created_at: '2024-01-01T01:01:00.000Z',
      thread: 'shop',
    })
    index.add({
      id: 'A',
      content: 'The one on the corner.',
      tags: [],
      created_at: '2024-01-01T01:02:00.000Z',
      thread: 'shop',
    })
    return index
  }

  const assertSameIndex = (copy: FactIndex, index: FactIndex): void => {
    assert.equal(copy.size, index.size)
    assert.equal(copy.has('F0003'), false)
    for (const q of queries) {
      assert.deepEqual(copy.search(q, {limit: 10}), index.search(q, {limit: 10}), q)
      assert.deepEqual(copy.search(q, {limit: 10, tags: ['event']}), index.search(q, {limit: 10, tags: ['event']}), q)
    }
  }

  it('toCompact/fromCompact keeps threads, the reply rule, dates and tags', () => {
    const facts = [
      {
        id: 'Q',
        content: 'Which store sells coffee in the morning?',
        tags: [],
        created_at: '2024-01-01T01:01:00.000Z',
        thread: 'shop',
      },
      {id: 'A', content: 'The one on the corner.', tags: [], created_at: '2024-01-01T01:02:00.000Z', thread: 'shop'},
      {
        id: 'U',
        content: 'The printer is broken again.',
        tags: [],
        created_at: '2024-01-01T01:03:00.000Z',
        thread: 'shop',
      },
    ]
    const index = new FactIndex()
    for (const f of facts) index.add(f)
    index.add({id: 'T', content: 'The printer was fixed.', tags: ['news'], created_at: '2024-03-01T01:00:00.000Z'})
    const loaded = FactIndex.fromCompact(index.toCompact())
    assert.deepEqual(loaded.search('coffee store', {limit: 3}), index.search('coffee store', {limit: 3}))
    assert.deepEqual(
      loaded.search('coffee store', {limit: 2}).map((h) => h.id),
      ['A', 'Q'],
    )
    assert.deepEqual(loaded.search('printer', {limit: 5}), index.search('printer', {limit: 5}))
    assert.deepEqual(
      loaded.search('printer', {limit: 5, tags: ['news']}).map((h) => h.id),
      ['T'],
    )
    const before = loaded.search('printer', {limit: 5, until: '2024-02-01T00:00:00.000Z'}).map((h) => h.id)
    assert.equal(before.includes('U'), true)
    assert.equal(before.includes('T'), false)
  })

  it('toCompact/fromCompact round-trips to identical results, and both keep working alike after further changes', () => {
    const index = changedIndex()
    const copy = FactIndex.fromCompact(index.toCompact())
    assertSameIndex(copy, index)
    for (const i of [index, copy]) {
      i.add({
        id: 'Y',
        content: 'Melanie ran a charity race?',
        tags: ['event'],
        created_at: '2024-09-01T00:00:00.000Z',
        thread: 'shop',
      })
      i.add({id: 'Z', content: 'It raised a lot.', tags: [], created_at: '2024-09-01T00:01:00.000Z', thread: 'shop'})
      i.add({
        id: 'W',
        content: 'Before the race, a cake sale.',
        tags: [],
        created_at: '2023-09-01T00:01:00.000Z',
        thread: 'shop',
      })
      i.remove('F0000')
      i.remove('A')
    }
    for (const q of [...queries, 'charity race'])
      assert.deepEqual(copy.search(q, {limit: 10}), index.search(q, {limit: 10}), q)
    assert.deepEqual(copy.toCompact(), index.toCompact())
  })

  it('fromCompact refuses details that do not match the documents', () => {
    const data = indexOf(FACTS.slice(0, 3)).toCompact()
    assert.throws(() => FactIndex.fromCompact({...data, createdAt: data.createdAt.slice(1)}), /differ in number/)
    assert.throws(() => FactIndex.fromCompact({...data, asks: Uint8Array.from([0, 2, 0])}), /bad details/)
    assert.throws(
      () => FactIndex.fromCompact({...data, threads: ['a'], threadOf: Uint32Array.from([0, 2, 0])}),
      /bad thread/,
    )
    assert.throws(() => FactIndex.fromCompact({...data, threadOf: Uint32Array.from([0, 0])}), /differ in number/)
  })

  it('fromCompact counts a fact saved under two slots once, at its first', () => {
    const data = indexOf(FACTS.slice(0, 3)).toCompact()
    const loaded = FactIndex.fromCompact({...data, idsSorted: false, ids: [data.ids[0]!, data.ids[0]!, data.ids[2]!]})
    assert.equal(loaded.size, 2)
    assert.deepEqual(loaded.toCompact().ids, [data.ids[0], data.ids[2]])
    const everything = FACTS.slice(0, 3)
      .map((f) => f.content)
      .join(' ')
    assert.ok(loaded.search(everything, {limit: 10}).every((hit) => hit.id !== undefined))
    assert.equal(loaded.search(everything, {limit: 10}).length, 2)
  })
})

describe('FactIndex properties', () => {
  it('search never throws on arbitrary strings and never returns more than limit', () => {
    const index = indexOf(FACTS)
    fc.assert(
      fc.property(fc.string({unit: 'binary', maxLength: 200}), fc.integer({min: 0, max: 20}), (query, limit) => {
        const hits = index.search(query, {limit})
        assert.ok(hits.length <= limit)
        assert.equal(new Set(hits.map((h) => h.id)).size, hits.length)
        for (const h of hits) assert.ok(Number.isFinite(h.score))
      }),
      {numRuns: 500},
    )
  })

  it('after any adds, replacements, removals and reloads, the index saves and ranks as a fresh index over the live facts', () => {
    const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'alphas', 'running', 'ran']
    const step = fc.oneof(
      {weight: 4, arbitrary: fc.tuple(fc.constant('add' as const), fc.nat(9), fc.array(fc.constantFrom(...words)))},
      {weight: 2, arbitrary: fc.tuple(fc.constant('remove' as const), fc.nat(9))},
      {weight: 1, arbitrary: fc.constant(['reload'] as const)},
    )
    /** What the saved index says of the words: which facts hold which terms, how often, and each fact's length. */
    const saved = (index: FactIndex) => {
      const {ids, terms, starts, postings, lengths} = index.toCompact()
      return {ids, terms, starts: [...starts], postings: [...postings], lengths: [...lengths]}
    }
    fc.assert(
      fc.property(fc.array(step, {maxLength: 40}), (steps) => {
        let index = new FactIndex()
        const live = new Map<string, IndexedFact>()
        for (const s of steps) {
          if (s[0] === 'add') {
            const fact = {id: `F${s[1]}`, content: s[2].join(' '), tags: [], created_at: '2024-01-01T00:00:00.000Z'}
            index.add(fact)
            live.delete(fact.id)
            live.set(fact.id, fact)
          } else if (s[0] === 'remove') {
            index.remove(`F${s[1]}`)
            live.delete(`F${s[1]}`)
          } else index = FactIndex.fromCompact(index.toCompact())
        }
        // A fact takes a new slot each time it is added, so the live facts in the order of their
        // last add are in slot order.
        const fresh = indexOf([...live.values()])
        assert.deepEqual(saved(index), saved(fresh))
        for (const query of ['alpha', 'bravo delta', 'run echo', 'alp'])
          assert.deepEqual(index.search(query, {limit: 10}), fresh.search(query, {limit: 10}), query)
      }),
      {numRuns: 300},
    )
  })

  it('indexes arbitrary content without throwing', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({unit: 'binary', maxLength: 80}), {maxLength: 20}),
        fc.string({unit: 'grapheme', maxLength: 40}),
        (contents, query) => {
          const index = indexOf(spaced(contents))
          assert.ok(index.search(query, {limit: 5}).length <= 5)
          assert.deepEqual(
            FactIndex.fromCompact(index.toCompact()).search(query, {limit: 5}),
            index.search(query, {limit: 5}),
          )
        },
      ),
      {numRuns: 200},
    )
  })

  it('ranks exactly like the slow reference', () => {
    // A small vocabulary with Zipf-like use, so some words are in most facts and most facts
    // lend context to, and borrow from, facts that also match.
    const words = [
      'alpha',
      'bravo',
      // Weak verbs: a fact matched only by them is left out while others match other words.
      'uses',
      'charlie',
      'delta',
      'echo',
      'foxtrot',
      'golfer',
      'got',
      'hotel',
      'india',
      'juliet',
      'alphas',
      'alpho',
      'deltas',
      'the',
    ]
    const word = fc
      .integer({min: 0, max: 1000})
      .map((n) => words[Math.min(words.length - 1, Math.floor(Math.exp((n / 1000) * Math.log(words.length + 1))) - 1)]!)
    // Words end a sentence now and then, some sentences ask: questions lend more to their reply.
    const mark = fc.constantFrom('', '', '', '', '.', '?', '!')
    // Turns of two threads and standalone facts, mixed; times mostly rising, sometimes equal or
    // earlier (an imported transcript), so thread order is by time and id, not arrival.
    const fact = fc.record({
      words: fc.array(fc.tuple(word, mark), {minLength: 1, maxLength: 8}),
      gapMinutes: fc.constantFrom(1, 1, 1, 0, -30, 120),
      tagged: fc.boolean(),
      thread: fc.constantFrom(undefined, 'one', 'one', 'two'),
    })
    // Queries also hold typos (a swap, a letter missing or added), prefixes, and a word being typed.
    const typo = fc.constantFrom(
      'alpah',
      'delat',
      'bravoo',
      'foxtrto',
      'charlei',
      'golfers',
      'hotl',
      'alp',
      'del',
      'ju',
      'echoes',
    )
    const query = fc.record({
      words: fc.array(fc.oneof({weight: 3, arbitrary: word}, {weight: 1, arbitrary: typo}), {
        minLength: 1,
        maxLength: 4,
      }),
      limit: fc.integer({min: 1, max: 6}),
      tagged: fc.boolean(),
      partial: fc.boolean(),
    })
    fc.assert(
      fc.property(
        fc.array(fact, {minLength: 1, maxLength: 80}),
        fc.array(fc.nat(), {maxLength: 8}),
        fc.array(query, {minLength: 1, maxLength: 8}),
        (facts, removals, queries) => {
          const index = new FactIndex()
          const ref = new ReferenceIndex()
          let time = Date.UTC(2023, 0, 1)
          const ids: string[] = []
          facts.forEach((f, i) => {
            time += f.gapMinutes * 60_000
            const fact = {
              id: `f${String(i).padStart(3, '0')}`,
              content: f.words.map(([w, m]) => w + m).join(' '),
              tags: f.tagged ? ['x'] : [],
              created_at: new Date(time).toISOString(),
              ...(f.thread === undefined ? {} : {thread: f.thread}),
            }
            index.add(fact)
            ref.add(fact)
            ids.push(fact.id)
          })
          for (const r of removals) {
            const id = ids[r % ids.length]!
            index.remove(id)
            ref.remove(id)
          }
          // A copy saved and loaded again ranks the same, also after both gain a fact and lose one.
          const loaded = FactIndex.fromCompact(index.toCompact())
          for (const q of queries) {
            const options = {...(q.tagged ? {tags: ['x']} : {}), partial: q.partial}
            const got = index.search(q.words.join(' '), {limit: q.limit, ...options})
            assert.deepEqual(loaded.search(q.words.join(' '), {limit: q.limit, ...options}), got)
            const want = ref.scores(q.words.join(' '), options)
            assert.equal(got.length, Math.min(q.limit, want.size))
            for (const h of got) {
              assert.ok(Math.abs(want.get(h.id)! - h.score) < 2e-4, `${h.id}: ${h.score} vs ${want.get(h.id)}`)
              assert.equal(
                h.contextFor !== undefined,
                ref.lastLender.has(h.id),
                `${h.id} is context exactly when it matched no query term`,
              )
            }
            const cut = got.at(-1)?.score ?? Number.POSITIVE_INFINITY
            for (const [id, s] of want)
              if (!got.some((h) => h.id === id)) assert.ok(s <= cut + 2e-4, `${id} (${s}) should have beaten ${cut}`)
          }
          for (const i of [index, loaded]) {
            i.add({
              id: 'f999',
              content: 'alpha bravo delta? kilo',
              tags: ['x'],
              created_at: new Date(time + 60_000).toISOString(),
              thread: 'one',
            })
            i.add({
              id: 'f998',
              content: 'an older turn, imported',
              tags: [],
              created_at: new Date(Date.UTC(2022, 0, 1)).toISOString(),
              thread: 'one',
            })
            i.remove(ids[0]!)
          }
          for (const q of queries)
            assert.deepEqual(
              loaded.search(q.words.join(' '), {limit: q.limit}),
              index.search(q.words.join(' '), {limit: q.limit}),
            )
        },
      ),
      {numRuns: 150},
    )
  })
})
