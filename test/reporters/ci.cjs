// The spec reporter for people, plus a JSON tally for .ci/run's closing line.
const fs = require('node:fs')
const Mocha = require('mocha')

class CiReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options)
    const out = options.reporterOption && options.reporterOption.json
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const {passes, failures, pending} = runner.stats
      if (out) fs.writeFileSync(out, JSON.stringify({passes, failures, pending}))
    })
  }
}

module.exports = CiReporter
