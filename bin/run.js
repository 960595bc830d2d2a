#!/usr/bin/env node
// `mem search` and `mem add` skip oclif's start-up when they can (src/fast.ts); anything the
// fast path declines, and every other command, runs through oclif.
const {runFast} = await import('../dist/fast.js')
if (!(await runFast(process.argv.slice(2)))) {
  const {execute} = await import('../dist/main.js')
  await execute({dir: import.meta.url})
} else {
  // The fast path has awaited all it does: ending once stdout and stderr are flushed skips the
  // garbage collection V8 would run on the idle loop first (about 5 ms of a cold `mem search`).
  let open = 2
  const flushed = () => --open === 0 && process.exit()
  process.stdout.write('', flushed)
  process.stderr.write('', flushed)
}
