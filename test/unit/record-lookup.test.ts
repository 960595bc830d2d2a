import assert from 'node:assert/strict'

import {recordsWith, recordText} from '../../src/store/file/record-lookup.js'

const HEADER = '{"format":"mem.facts","version":3,"agent":"default","records":['

/** A segment file's bytes as mem writes them. */
function file(records: object[], agent = 'default'): Buffer {
  return Buffer.from(`${JSON.stringify({format: 'mem.facts', version: 3, agent, records})}\n`)
}

const tricky = [
  {id: 'A1', content: 'plain', tags: []},
  // Braces, quotes, backslashes and another record's id spelled out inside a string.
  {id: 'B2', content: 'a } and a { and "quotes" and \\ and {"id":"C3","content":"fake"}', tags: ['x}']},
  {id: 'C3', content: 'ünïcödé ✓ and an escaped \\"', tags: [], created_at: '2025-01-01T00:00:00.000Z'},
]

describe('one record read from a segment file by its id', () => {
  it('is the record exactly as it was written, whatever its strings hold', () => {
    const bytes = file(tricky)
    for (const record of tricky) assert.equal(recordText(bytes, HEADER, record.id), JSON.stringify(record))
  })

  it('is nothing for an id no record has, or one only spelled out inside a string', () => {
    const bytes = file(tricky.filter((r) => r.id !== 'C3'))
    assert.equal(recordText(bytes, HEADER, 'C3'), undefined)
    assert.equal(recordText(bytes, HEADER, 'Z9'), undefined)
  })

  it('declines a file not in the shape mem writes, so that it is read whole', () => {
    const records = [tricky[0]!]
    // Another agent's envelope, an older version, a file formatted by hand, keys in another order.
    assert.equal(recordText(file(records, 'bob'), HEADER, 'A1'), undefined)
    assert.equal(
      recordText(Buffer.from(file(records).toString().replace('"version":3', '"version":2')), HEADER, 'A1'),
      undefined,
    )
    const pretty = Buffer.from(JSON.stringify({format: 'mem.facts', version: 3, agent: 'default', records}, null, 2))
    assert.equal(recordText(pretty, HEADER, 'A1'), undefined)
    assert.equal(recordText(file([{content: 'plain', id: 'A1', tags: []}]), HEADER, 'A1'), undefined)
  })

  it('declines an id found twice, or a record cut off', () => {
    assert.equal(recordText(file([tricky[0]!, tricky[0]!]), HEADER, 'A1'), undefined)
    const whole = file(tricky).toString()
    const cut = Buffer.from(whole.slice(0, whole.indexOf('"id":"C3"') + 20))
    assert.equal(recordText(cut, HEADER, 'C3'), undefined)
    assert.equal(recordText(cut, HEADER, 'A1'), JSON.stringify(tricky[0]))
  })
})

describe('the records of a segment file holding a value, read from its bytes', () => {
  const records = [
    {id: 'A1', content: 'the weir floods in March', tags: []},
    // The same words inside another string, as a prefix of a longer one, and under another key.
    {id: 'B2', content: 'not "the weir floods in March"', tags: ['the weir floods in March']},
    {id: 'C3', content: 'the weir floods in March again', tags: []},
    {id: 'D4', content: 'ünïcödé ✓ and "quotes" and \\ and {"id":"Z9","content":"x"}', tags: []},
    {id: 'E5', content: 'the weir floods in March', tags: ['twice']},
  ]

  it('are every record whose field is exactly the value, as written, whatever the other strings hold', () => {
    const bytes = file(records)
    assert.deepEqual(recordsWith(bytes, HEADER, 'content', 'the weir floods in March'), [
      JSON.stringify(records[0]),
      JSON.stringify(records[4]),
    ])
    assert.deepEqual(recordsWith(bytes, HEADER, 'content', records[3]!.content), [JSON.stringify(records[3])])
    assert.deepEqual(recordsWith(bytes, HEADER, 'content', 'x'), [])
    assert.deepEqual(recordsWith(bytes, HEADER, 'content', 'the weir'), [])
  })

  it('decline a file not in the shape mem writes, so that it is read whole', () => {
    const one = [records[0]!]
    assert.equal(recordsWith(file(one, 'bob'), HEADER, 'content', records[0]!.content), undefined)
    const pretty = Buffer.from(
      JSON.stringify({format: 'mem.facts', version: 3, agent: 'default', records: one}, null, 2),
    )
    assert.equal(recordsWith(pretty, HEADER, 'content', records[0]!.content), undefined)
    // The id after the content: the record cannot be told from its neighbour.
    const reordered = file([{content: 'the weir floods in March', id: 'A1', tags: []}])
    assert.equal(recordsWith(reordered, HEADER, 'content', 'the weir floods in March'), undefined)
    const whole = file(one).toString()
    const cut = Buffer.from(whole.slice(0, whole.indexOf('"tags"')))
    assert.equal(recordsWith(cut, HEADER, 'content', records[0]!.content), undefined)
  })
})
