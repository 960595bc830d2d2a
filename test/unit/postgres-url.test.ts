import assert from 'node:assert/strict'

import {parse} from 'pg-connection-string'

import {MemError} from '../../src/errors.js'
import {checkPostgresUrl, redactUrl, withoutPassword} from '../../src/store/postgres/url.js'

describe('PostgreSQL URLs: what a config file or a message may show', () => {
  it('withoutPassword takes the password out of the user part and the parameters, and keeps the rest', () => {
    const cases: [string, string][] = [
      ['postgres://mem:hunter2@db.internal:5432/mem', 'postgres://mem@db.internal:5432/mem'],
      ['postgresql://mem:p%40ss@db/mem?sslmode=verify-full', 'postgresql://mem@db/mem?sslmode=verify-full'],
      ['postgres://:hunter2@db/mem', 'postgres://db/mem'],
      ['postgres://mem@/mem?host=%2Frun%2Fpg&password=hunter2', 'postgres://mem@/mem?host=%2Frun%2Fpg'],
      ['postgres:///mem?password=hunter2&user=mem', 'postgres:///mem?user=mem'],
      ['postgres:///mem?PASSWORD=hunter2', 'postgres:///mem'],
      ['postgres://mem@db/mem', 'postgres://mem@db/mem'],
      ['postgres://db/mem?application_name=a#x', 'postgres://db/mem?application_name=a'],
      ['postgres://mem:hunter2@db/mem#frag', 'postgres://mem@db/mem'],
    ]
    for (const [url, expected] of cases) assert.equal(withoutPassword(url), expected, url)
  })

  it('redactUrl keeps the place of the password visible, and leaves a #fragment out', () => {
    assert.equal(redactUrl('postgres://mem:hunter2@db/mem?password=x'), 'postgres://mem:***@db/mem?password=***')
    assert.equal(redactUrl('postgres://mem:hunter2@db/mem#s3cret-note'), 'postgres://mem:***@db/mem')
  })
})

describe('PostgreSQL URLs: what mem refuses before connecting', () => {
  /** The message checkPostgresUrl refuses `url` with, or undefined when it takes it. */
  function refusal(url: string, source?: string): string | undefined {
    try {
      checkPostgresUrl(url, source)
      return undefined
    } catch (error) {
      assert.ok(error instanceof MemError)
      assert.equal(error.code, 'invalid_input')
      return error.message
    }
  }

  const readable = [
    'postgres://mem@db.internal:5432/mem',
    'postgresql://mem:p%40ss@db/mem?sslmode=verify-full',
    'postgres:///mem?host=/run/postgresql',
    'postgres://mem:secret@/mem?host=/run/postgresql',
    'postgres://mem@[::1]:5432/mem',
    'postgres://us%er@db/mem',
    'postgres://mem:pa ss@db/mem',
    'postgres://mem:p@ss@db/mem',
    'postgres://',
    'postgres://db:/mem',
  ]
  const unreadable: [string, RegExp][] = [
    [
      'postgres://db:abc/mem',
      /the port \(after the host's ":"\) is not a number; the form is postgres:\/\/user@host:5432\/database/,
    ],
    ['postgres://db:99999/mem', /the port is above 65535/],
    ['postgres://[::1/mem', /the address in brackets is not an IPv6 address/],
    [
      'postgres://mem:pa/s3cret@db/mem',
      /is not a number \(a \/ or \? in a user name or password must be written %2F or %3F/,
    ],
    ['postgres://mem:pa?s3cret@db/mem', /%2F or %3F/],
    ['postgres://db<x>/mem', /the host name holds a character a host name cannot/],
  ]

  it('takes what node-postgres reads, and refuses what it cannot, saying what is wrong', () => {
    for (const url of readable) {
      assert.doesNotThrow(() => parse(url), url)
      assert.equal(refusal(url), undefined, url)
    }
    for (const [url, said] of unreadable) {
      assert.throws(() => parse(url), url)
      const message = refusal(url)
      assert.ok(message !== undefined, url)
      assert.match(message, /^MEM_STORE is not a PostgreSQL URL mem can read: /, url)
      assert.match(message, said, url)
      assert.match(message, /its value was left out of this message/)
      assert.doesNotMatch(message, /Invalid URL|s3cret|abc|99999|db</, url)
    }
    assert.match(refusal('postgres://db:abc/mem', '--to')!, /^--to is not a PostgreSQL URL mem can read/)
  })

  it('a # before the user part ends is a password to encode; any other #fragment is dropped', () => {
    assert.match(refusal('postgres://mem:pa#s3cret@db/mem')!, /a # comes before the @ .* must be written %23/)
    assert.doesNotMatch(refusal('postgres://mem:pa#s3cret@db/mem')!, /s3cret/)
    assert.equal(
      checkPostgresUrl('postgres://mem@db/mem?sslmode=require#s3cret'),
      'postgres://mem@db/mem?sslmode=require',
    )
  })
})
