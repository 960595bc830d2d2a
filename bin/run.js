#!/usr/bin/env node
// `mem search` and `mem add` skip oclif's start-up when they can (src/fast.ts), compiled with
// the code V8 cached on an earlier run (src/code-cache.ts); anything the fast path declines, and
// every other command, runs through oclif. This file is CommonJS (bin/package.json): a cold
// command then starts without Node's ES module loader, which only the oclif path needs.
'use strict'
const {join} = require('node:path')
const {loadWithCodeCache} = require('../dist/code-cache.cjs')

const root = join(__dirname, '..')
const fast = loadWithCodeCache(join(root, 'dist', 'fast.cjs'), process.argv[2])

async function main() {
  if (!(await fast.exports.runFast(process.argv.slice(2)))) {
    const {execute} = await import('../dist/main.js')
    // The package root itself: oclif looks for package.json from here up, and bin/ holds one.
    await execute({dir: root})
    return
  }
  fast.saveCache()
  // The fast path has awaited all it does: ending once stdout and stderr are flushed skips the
  // garbage collection V8 would run on the idle loop first (about 5 ms of a cold `mem search`).
  let open = 2
  const flushed = () => --open === 0 && process.exit()
  process.stdout.write('', flushed)
  process.stderr.write('', flushed)
}

main()
