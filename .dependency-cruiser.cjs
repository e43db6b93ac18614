// The house's layers, enforced in `npm test` (test/architecture.test.ts cruises src/ with
// this file). Imports point one way:
//
//   commands -> cli -> stages -> extract/ (pure) and evidence/ -> store -> util
//
// A stage may import a stage listed before it in STAGES (notify reads scope and replay,
// replay drives probe and testbed, ...), never one after it. Type-only imports count too:
// a type pulled from above is coupling all the same.

const STAGES = ['generate', 'testbed', 'probe', 'ingest', 'detect', 'scale', 'scope', 'replay', 'notify', 'case', 'triage', 'demo', 'bench']
const group = (names) => `^src/(${names.join('|')})/`

const stageRules = STAGES.map((stage, i) => ({
  name: `stage-${stage}-imports-later-stage`,
  comment: `${stage} may use the stages before it (${STAGES.slice(0, i).join(', ') || 'none'}), not those after it`,
  severity: 'error',
  from: {path: `^src/${stage}/`},
  to: {path: STAGES.slice(i + 1).length > 0 ? group(STAGES.slice(i + 1)) : '^$'},
}))

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No module imports itself through others.',
      severity: 'error',
      from: {path: '^src/'},
      to: {circular: true},
    },
    {
      name: 'util-imports-upward',
      comment: 'util/ and errors.ts depend on nothing of ours.',
      severity: 'error',
      from: {path: '^src/(util/|errors\\.ts$)'},
      to: {path: '^src/', pathNot: '^src/(util/|errors\\.ts$)'},
    },
    {
      name: 'store-imports-upward',
      comment: 'The store speaks SQL for everyone and knows nobody above it.',
      severity: 'error',
      from: {path: '^src/store/'},
      to: {path: '^src/', pathNot: '^src/(store|util)/|^src/errors\\.ts$'},
    },
    {
      name: 'extract-is-pure',
      comment: 'extract/ turns one line of text into data: no database, no files of the case.',
      severity: 'error',
      from: {path: '^src/extract/'},
      to: {path: '^src/', pathNot: '^src/(extract|util)/|^src/errors\\.ts$'},
    },
    {
      name: 'evidence-imports-upward',
      comment: 'evidence/ reads and writes the original bytes through the store.',
      severity: 'error',
      from: {path: '^src/evidence/'},
      to: {path: '^src/', pathNot: '^src/(evidence|extract|store|util)/|^src/errors\\.ts$'},
    },
    {
      name: 'stage-imports-cli-or-commands',
      comment: 'Stages never see flags or renderers: they take options objects.',
      severity: 'error',
      from: {path: group(STAGES)},
      to: {path: '^src/(cli|commands)/'},
    },
    {
      name: 'cli-imports-commands',
      comment: 'cli/ serves the commands; it never imports one.',
      severity: 'error',
      from: {path: '^src/cli/'},
      to: {path: '^src/commands/'},
    },
    {
      name: 'domain-imports-edge-libraries',
      comment: 'oclif, chalk and pdfkit belong to the edge (cli/, commands/).',
      severity: 'error',
      from: {path: '^src/', pathNot: '^src/(cli|commands)/'},
      to: {path: 'node_modules/(@oclif|chalk|pdfkit)/'},
    },
    ...stageRules,
  ],
  options: {
    doNotFollow: {path: 'node_modules'},
    tsPreCompilationDeps: true,
    tsConfig: {fileName: 'tsconfig.json'},
    exclude: {path: '^(dist|node_modules)/'},
  },
}
