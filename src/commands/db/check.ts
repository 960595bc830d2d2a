import {MemCommand} from '../../cli/base-command.js'
import {plural} from '../../plural.js'
import {postgresUrl, redactUrl} from '../../store/postgres/url.js'

export default class DbCheck extends MemCommand {
  static override summary = 'Check the PostgreSQL database MEM_STORE names: connection, schema version, and rows.'
  static override description =
    'Connects, compares the schema version with the one this mem applies, and checks the rows against each other: records that are not records, ' +
    'history marks that disagree with the columns search uses, facts replaced by facts that do not exist, and agents whose change counter or last id is behind their rows. ' +
    'It only reads. Exits with status 1 when problems are found (see docs/team.md).'
  static override examples = ['MEM_STORE=postgres://mem@db.internal/mem <%= config.bin %> db check']

  async run(): Promise<unknown> {
    await this.parse(DbCheck)
    const url = postgresUrl('mem db check')
    const {PostgresStore} = await import('../../store/postgres/postgres-store.js')
    const store = await PostgresStore.open(url, {shortLived: true, migrate: false})
    try {
      const report = {database: redactUrl(url), ...(await store.check())}
      this.print(this.jsonMode ? JSON.stringify(report) : prose(report))
      if (!report.ok) this.exit(1)
      return report
    } finally {
      await store.close()
    }
  }
}

function prose(report: {
  database: string
  schema: {version: number; latest: number}
  agents: number
  facts: number
  checkpoints: number
  problems: {agent: string; id?: string; problem: string}[]
}): string {
  const {version, latest} = report.schema
  const head =
    version === latest
      ? `Checked ${report.database}: schema version ${version} (current), ${plural(report.agents, 'agent')}, ${plural(report.facts, 'fact')}, ${plural(report.checkpoints, 'checkpoint')}.`
      : `Checked ${report.database}: schema version ${version}, this mem applies ${latest}.`
  if (report.problems.length === 0) return `${head}\nEverything is in order.`
  const lines = report.problems.map((p) =>
    p.agent === '' ? `- ${p.problem}` : `- agent ${p.agent}${p.id === undefined ? '' : `, ${p.id}`}: ${p.problem}`,
  )
  return `${head}\n${plural(report.problems.length, 'problem')}:\n${lines.join('\n')}`
}
