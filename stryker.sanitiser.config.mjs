// The sanitiser's mutation run: reported (score and every survivor) in CI, not yet gated. It scores 56 % today
// (175 survivors, mostly regex details, conditions and string literals of the unicode, markup and encoded-run
// passes); when its tests bring it to 85 %, move it into stryker.config.mjs and delete this file.
import base from './stryker.config.mjs'

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  mutate: ['core/text/sanitiser.ts'],
  thresholds: { high: 95, low: 85, break: null },
  incrementalFile: '.ci/mutation-sanitiser-incremental.json',
  jsonReporter: { fileName: 'reports/mutation/sanitiser.json' },
}
