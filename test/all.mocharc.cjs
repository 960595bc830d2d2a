// `npm test`: every test, in parallel worker processes (mocha's --parallel), each file in a
// worker of its own. Most tests wait on the processes they start (mem, servers, PostgreSQL,
// tmux), so three workers keep two cores busy where one would leave them idle.
//
// Workers take files in the order given, so the longest files go first: started last, one of
// them would hold the run open alone at the end. The rest follow in the usual sorted order.
const {readdirSync} = require('node:fs')
const {join} = require('node:path')

const base = require('../.mocharc.json')

const LONGEST_FIRST = [
  'test/reliability/corruption.test.ts',
  'test/reliability/crash.test.ts',
  'test/store-conformance/postgres-cli.test.ts',
  'test/store-conformance/state-keys.property.test.ts',
  'test/http/load.test.ts',
  'test/reliability/concurrency.test.ts',
  'test/store-conformance/postgres-servers.test.ts',
  'test/torture/stall.test.ts',
  'test/contract/twins.test.ts',
]

const all = readdirSync(__dirname, {recursive: true})
  .map((file) => join('test', file))
  .filter((file) => /\.test\.tsx?$/.test(file))
  .sort()

module.exports = {
  ...base,
  parallel: true,
  jobs: 3,
  spec: [...LONGEST_FIRST, ...all.filter((file) => !LONGEST_FIRST.includes(file))],
}
