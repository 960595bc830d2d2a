import {readFileSync} from 'node:fs'

/**
 * Environment for a `mem` process that logs to `log` each path it opens through node:fs, in
 * order, and (with `answers`) a line `answer` each time it writes a tool result to stdout.
 */
export function openLogEnv(log: string, options: {answers?: boolean} = {}): Record<string, string> {
  const answers = options.answers
    ? `const write = process.stdout.write.bind(process.stdout)
      process.stdout.write = (chunk, ...rest) => { if (String(chunk).includes('structuredContent')) append(log, 'answer\\n'); return write(chunk, ...rest) }`
    : ''
  const trace = `import fs from 'node:fs'; import {syncBuiltinESMExports} from 'node:module'
      const append = fs.appendFileSync; const log = ${JSON.stringify(log)}
      for (const name of ['openSync', 'readFileSync']) { const real = fs[name]; fs[name] = function (path, ...rest) { if (typeof path === 'string') append(log, 'open ' + path + '\\n'); return real.call(this, path, ...rest) } }
      syncBuiltinESMExports()
      ${answers}`
  return {NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(trace)}`}
}

/** The log's lines (up to the first `answer` with `untilAnswer`). */
export function openLogLines(log: string, options: {untilAnswer?: boolean} = {}): string[] {
  const events = readFileSync(log, 'utf8').split('\n')
  return options.untilAnswer ? events.slice(0, events.indexOf('answer')) : events
}

/** The names of the files of `folder` the log says were opened, once each, in order. */
export function openedIn(lines: readonly string[], folder: string, suffix = '.json'): string[] {
  const prefix = `open ${folder}/`
  return [
    ...new Set(lines.filter((e) => e.startsWith(prefix) && e.endsWith(suffix)).map((e) => e.slice(prefix.length))),
  ]
}
