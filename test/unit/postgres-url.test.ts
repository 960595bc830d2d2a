import assert from 'node:assert/strict'

import {redactUrl, withoutPassword} from '../../src/store/postgres/url.js'

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
      ['postgres://db/mem?application_name=a#x', 'postgres://db/mem?application_name=a#x'],
    ]
    for (const [url, expected] of cases) assert.equal(withoutPassword(url), expected, url)
  })

  it('redactUrl keeps the place of the password visible', () => {
    assert.equal(redactUrl('postgres://mem:hunter2@db/mem?password=x'), 'postgres://mem:***@db/mem?password=***')
  })
})
