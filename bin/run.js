#!/usr/bin/env node
// `mem search` and `mem add` skip oclif's start-up when they can (src/fast.ts); anything the
// fast path declines, and every other command, runs through oclif.
const {runFast} = await import('../dist/fast.js')
if (!(await runFast(process.argv.slice(2)))) {
  const {execute} = await import('../dist/main.js')
  await execute({dir: import.meta.url})
}
