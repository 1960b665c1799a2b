// The skills' computations (FIH dose projection, exposure margins, NCA): not in CI yet. Its tests are pure and ready
// (tests/skills/*.test.ts in vitest.pure.config.ts, the golden results included), but its first run is about 2,000
// mutants, over half an hour with one test runner on CI's shared machine; see docs/contributors.md, "Mutation testing".
// Run it with `npx stryker run stryker.skills.config.mjs`; once its incremental file is committed, later runs re-test
// only what changed and it can join `npm run mutation`.
import base from './stryker.config.mjs'

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  mutate: [
    'domain/skills/fih-dose-projection.ts',
    'domain/skills/exposure-margin-table.ts',
    'domain/skills/pk-parameter-extraction.ts',
  ],
  incrementalFile: '.ci/mutation-skills-incremental.json',
  jsonReporter: { fileName: 'reports/mutation/skills.json' },
}
