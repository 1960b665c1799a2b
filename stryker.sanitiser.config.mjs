// The sanitiser's mutation run, gated at 90 % (why: docs/contributors.md, "Mutation testing"). It has its
// own run and incremental file because its tests (the injection fixture through every entry point) cover each of its
// mutants many times over: kept apart, a change to the other rules' tests never re-runs it.
import base from './stryker.config.mjs'

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  mutate: ['core/text/sanitiser.ts'],
  thresholds: { high: 95, low: 85, break: 90 },
  incrementalFile: '.ci/mutation-sanitiser-incremental.json',
  jsonReporter: { fileName: 'reports/mutation/sanitiser.json' },
}
