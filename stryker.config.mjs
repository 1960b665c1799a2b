// Mutation testing (StrykerJS, vitest runner) on the rules that guard people and need no database, gated at 85 %:
// redaction, the state machines, the edge limits, the footers, the notebook webhook's signature rules and the skills'
// number formatting. The sanitiser has its own gated run (stryker.sanitiser.config.mjs); the skills' computations have
// a run that is not in CI yet (stryker.skills.config.mjs). `npm run mutation` (in .ci/run).
// The pure tests run under vitest.pure.config.ts (no database global setup).
// No TypeScript checker: TypeScript here is 7 (native, no compiler API); a mutant that does not typecheck is
// run anyway and is killed or survives on behaviour, as in plain JavaScript.
// Threshold (break 85): see docs/contributors.md, "Mutation testing".
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.pure.config.ts', related: false },
  plugins: ['@stryker-mutator/vitest-runner'],
  coverageAnalysis: 'perTest',
  mutate: [
    'core/text/redact.ts',
    'core/states/*.ts',
    '!core/states/state-machine.ts',
    'core/states/state-machine.ts:64-84',
    'core/states/state-machine.ts:139-172',
    'gateway/edge-limits.ts',
    'core/text/footers.ts',
    'domain/notebook/webhook-signature.ts',
    'domain/skills/numbers.ts',
  ],
  // Stryker would rewrite tsconfig.json's references in its sandbox with the TypeScript compiler API, which TypeScript 7
  // does not have; the sandbox needs no rewrite (tsx and vitest read tsconfig.json as it is), so it is pointed at none.
  tsconfigFile: 'no-tsconfig-rewrite.json',
  // Incremental: the results of the last run are committed (.ci/mutation-incremental.json); a run re-tests only the
  // mutants whose code or covering tests changed, so CI's fresh clone does not start from nothing.
  incremental: true,
  incrementalFile: '.ci/mutation-incremental.json',
  ignoreStatic: true,
  // One test runner: CI's machine has two cores shared with other jobs.
  concurrency: 1,
  timeoutMS: 10_000,
  thresholds: { high: 95, low: 90, break: 85 },
  reporters: ['clear-text', 'progress', 'json'],
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: true, reportScoreTable: true },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
}
