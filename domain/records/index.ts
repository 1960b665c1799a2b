// Owns program records (the workbench role catalogue's record types): the contract other modules use. The type
// catalogue (types.ts), citations (citations.ts), the one write path (write.ts), the reads (read.ts) and the raw SQL (sql.ts).
export { RECORD_TYPES, RECORD_TYPE_KEYS, RECORD_AUDIT_ACTIONS, isRecordType, decidePermission, validateFields, valueWords } from './types'
export type { RecordTypeKey, RecordTypeSpec, FieldSpec } from './types'
export { CITATION_KINDS } from './citations'
export type { CitationInput, CitationKind } from './citations'
export { applyRecordChange, parseRecordChange, currentVersions, createRecord, updateRecord, decideRecord, typedFields } from './write'
export type { RecordChange, Provenance } from './write'
export type { Citation } from './read'
export { recordCountsByStatus, latestRecordPerType } from './sql'
export { findRecord, listRecords, recordHistory, recordCitations, recordSource, recordFooter, versionFooter, currentVersionRow } from './read'
export { seedIllustrativeRecords } from './seed'
export { recordContent, versionChanges, viewerRecordPermissions, viewerCanCreate, readableRecordTypes } from './content'
export type { RecordFieldValue, RecordValueChange } from './content'
