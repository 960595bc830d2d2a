import assert from 'node:assert/strict'

import fc from 'fast-check'

import {BODY_DEPTH_LIMIT} from '../../src/mcp/http/request-body.js'
import {jsonNestsDeeperThan} from '../../src/mcp/http/json-depth.js'
import {jsonDepthExceeds} from '../../src/ops/json-bounds.js'
import {LIMITS} from '../../src/ops/limits.js'

const deeper = (text: string, limit: number) => jsonNestsDeeperThan(Buffer.from(text, 'utf8'), limit)

describe('the nesting of a JSON body, told from its bytes before parsing', () => {
  it('counts arrays and objects alike, up to the limit and one past it', () => {
    assert.equal(deeper('1', 0), false)
    assert.equal(deeper('[]', 0), true)
    assert.equal(deeper('[{"a":[]}]', 3), false)
    assert.equal(deeper('[{"a":[]}]', 2), true)
    assert.equal(deeper('[[],[],{"a":{}}]', 3), false)
    assert.equal(deeper('[[],[],{"a":{}}]', 2), true)
    assert.equal(deeper(' { "a" : [ 1 , { "b" : null } ] } ', 3), false)
    assert.equal(deeper(' { "a" : [ 1 , { "b" : [ ] } ] } ', 3), true)
  })

  it('does not count brackets inside strings, keys included', () => {
    assert.equal(deeper('{"[[[[":"{{{{"}', 1), false)
    assert.equal(deeper('["]]]]", [[]]]', 2), true)
  })

  it('reads an escaped quote as part of the string, and an escaped backslash as ending nothing', () => {
    // The string holds \" and then brackets: still inside it.
    assert.equal(deeper(String.raw`{"a":"\"[[[["}`, 1), false)
    // The string is one backslash; what follows is outside it and counts.
    assert.equal(deeper(String.raw`["\\",[[]]]`, 2), true)
    assert.equal(deeper(String.raw`["\\",[[]]]`, 3), false)
    assert.equal(deeper(String.raw`["\\\"[[",[]]`, 2), false)
    assert.equal(deeper(String.raw`["\u005b\u007b", []]`, 2), false)
  })

  it('reads UTF-8 text without mistaking any byte of a character for a bracket or quote', () => {
    assert.equal(deeper('{"東京":["é","🦓",{"ü":"[Ω]"}]}', 3), false)
    assert.equal(deeper('{"東京":["é","🦓",{"ü":["Ω"]}]}', 3), true)
  })

  it('refuses a body nested a million deep, and one that is not JSON is left to the parser', () => {
    assert.equal(deeper('['.repeat(1_000_000) + ']'.repeat(1_000_000), BODY_DEPTH_LIMIT), true)
    assert.equal(deeper('{"a":'.repeat(1_000), BODY_DEPTH_LIMIT), true)
    assert.equal(deeper(']]]]}}}}', 0), false)
    assert.equal(deeper('"an unterminated [[[[', 0), false)
  })

  it('agrees with the depth of the parsed value for any JSON, however it is spaced', () => {
    fc.assert(
      fc.property(fc.jsonValue({maxDepth: 8}), fc.integer({min: 0, max: 10}), fc.boolean(), (value, limit, pretty) => {
        const text = pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value)
        assert.equal(deeper(text, limit), jsonDepthExceeds(value, limit))
      }),
      {numRuns: 500},
    )
  })

  it('lets through a checkpoint state nested as deep as the store allows, even in a batch', () => {
    // message, params, arguments, then the state's own levels, inside a batch's array.
    assert.ok(BODY_DEPTH_LIMIT >= LIMITS.jsonDepth + 4)
    let state: unknown = 1
    for (let i = 0; i < LIMITS.jsonDepth; i++) state = {s: state}
    const call = {jsonrpc: '2.0', id: 1, method: 'tools/call', params: {name: 'checkpoint_save', arguments: {state}}}
    assert.equal(deeper(JSON.stringify([call]), BODY_DEPTH_LIMIT), false)
  })
})
