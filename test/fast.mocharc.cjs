// `npm run test:fast`: the tests that run in-process and start no `mem`, server, terminal or
// database (a few seconds of startup each is what makes the rest slow), for the loop of everyday
// work. `npm test` runs these and every other test; add a file here only if it starts no process.
const base = require('../.mocharc.json')

module.exports = {
  ...base,
  spec: [
    'test/cli/config-dir.test.ts',
    'test/cli/fast-argv.property.test.ts',
    'test/clients/clients.test.ts',
    'test/meaning/vector-index.test.ts',
    'test/reliability/inputs.property.test.ts',
    'test/search/fact-index.test.ts',
    'test/search/lines.test.ts',
    'test/search/meaning-blend.test.ts',
    'test/search/questions.test.ts',
    'test/search/tokenize.test.ts',
    'test/store/file/budget.test.ts',
    'test/terminal/cli-operations.test.ts',
    'test/terminal/inert-text.test.ts',
    'test/terminal/render.test.ts',
    'test/transfer/file-store-import.test.ts',
    'test/transfer/split-input.test.ts',
    'test/ui/browser-screen.test.ts',
    'test/ui/browser.test.ts',
    'test/ui/cells.test.ts',
    'test/ui/keys.test.ts',
    'test/ui/line-edit.test.ts',
    'test/unit/*.test.ts',
  ],
}
