// The console's one door to the specification's fixed phrases: they live in core/text/copy.ts (no server dependency, so
// esbuild bundles it as is) and are never retyped here or in a screen (tests/console/copy.test.ts checks).
export {
  FIXED_PHRASES, MEMORY, MEMORY_PANEL, TWINS, WORKBENCH,
  nothingWaiting, filingPaused, proposedBy, proposedByWorkingAs, setBy, viewedBy, sharedBy, routedUnderDelegation,
  requiredRecordsPresent, gateClosedBy,
} from '../../core/text/copy'
// The skills screen's method line and 'How this was computed'.
export { SKILLS } from '../../core/text/copy'
