// Public API of the skills domain (pure, deterministic). See README.md in this folder.
export { SkillInputError, isSkillInputError, SKILL_INPUT_ERROR_CODES, type SkillInputErrorCode } from './errors'
export {
  runSkill,
  runSkillSync,
  executeSkill,
  skillClassOf,
  outputViolations,
  NO_QUALIFICATION_RULE,
  type RunOptions,
} from './runner'
export {
  SKILL_DEFINITIONS,
  RESERVED_SKILL_KEYS,
  FORBIDDEN_VERBS,
  FORBIDDEN_VERB_CONFLICTS,
  MAX_SKILL_RUNS_PER_TURN,
  SKILL_KEY_PATTERN,
  assertSkillKey,
  skillKeyProblems,
  getSkill,
  getSkillDefinition,
  isReservedSkillKey,
  listSkills,
  skillOut,
  skillPermission,
  skillStatus,
  type ReservedSkillKey,
  type SkillDefinition,
  type SkillOut,
  type SkillReferenceOut,
  type SkillValidationOut,
  type SkillStatus,
  type StatusFlags,
} from './registry'
export {
  REFERENCES,
  getReference,
  referenceCheck,
  referenceRef,
  supersessionWarning,
  supersessionWarnings,
  type ReferenceCheckResult,
  type ReferenceEntry,
  type ReferenceProblem,
  type ReferenceRef,
} from './references'
export {
  computeInputsHash,
  skillResultJson,
  type CitationRef,
  type HowComputed,
  type IntermediateValue,
  type SkillCell,
  type SkillCitation,
  type SkillResult,
  type SkillTable,
  type SkillValue,
} from './result'
export { loadRdkit } from './rdkit'
export type { SkillClass, SkillProduct, SkillRunRole } from './skill'
// Skill runs for a person (the class A run in the API process, the class B run in the worker) and the pieces the
// skills' tests check directly against golden data.
export { runQueuedSkill, runSkillForPerson, skillByKey, skillCatalogue } from './skill-runs'
export type { SkillResultOut } from './skill-runs'
export { canonicalJson, canonicalSha256 } from './hash'
export { classify, splitSentences } from './assertion-lint'
export { ASSERTION_MODEL, FDA_2005_KM_TABLE, PK_GOLDEN_SYNTHETIC } from './references'
export { NCA_GOLDEN_INDOMETH, NCA_GOLDEN_THEOPH } from './nca-golden'
export { VALIDATION_RECORDS, getValidationRecord, type ValidationRecord } from './validation'
export type { GoldenResult, GoldenSubject } from './nca-golden'
export { bestFitLambdaZ } from './pk-parameter-extraction'
export { isShareAlike, LE_CONSTANT } from './sar-table-build'
export { convertUcum, displayUnit, HUMAN_KM, kindOf, readDose, readQuantity, resolveSpecies, SPECIES, validateUcum } from './vocabulary'
export { documentRef, parseProgramCitation, tableCitation, type ProgramCitation, type ProgramCitationKind } from '../citations'
export { recordRun } from './skill-runs'
export { TABLE_INPUT_SKILLS, tableInputJsonSchema, tableRowsAsInput } from './skill-table-input'
export { keysAsWords, labelOf, outputInWords, stepInWords, unitWords, valueText } from './words'
export { formatFixed, formatSig, normalise15, plainDecimal, sameToSig } from './numbers'
