// The skills' computations, gated at 85 % like the other runs (`npm run mutation`, so in .ci/run). The first full run
// (about 1,800 mutants, 63 minutes with one test runner) scored FIH dose projection 89.80 %, exposure margins 66.92 %
// and NCA (pk-parameter-extraction) 79.35 %: only the files at or above the gate are mutated here; the others join as
// their tests catch more (run one with `npx stryker run stryker.skills.config.mjs --mutate <file> --incrementalFile
// .ci/mutation-skills-<name>-incremental.json`, so the gated run's file keeps only the gated results). See
// docs/contributors.md, "Mutation testing".
import base from './stryker.config.mjs'

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  mutate: [
    'domain/skills/fih-dose-projection.ts',
  ],
  incrementalFile: '.ci/mutation-skills-incremental.json',
  jsonReporter: { fileName: 'reports/mutation/skills.json' },
}
