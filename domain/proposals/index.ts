// Owns proposals and decisions: filing a proposal and reading it (proposals.ts), deciding one or a batch
// (decisions.ts), the role home's decisions (workbench-decisions.ts) and the monthly review audit (review-audit.ts).
// The contract other modules use.
export { fileProposal, getDraft, getProposal, getProposals, getRecordDecisions, fileHandoffProposal, PROPOSAL_EXPIRY_HOURS, asQuestion, isProposal, decisionFooter, workingAsOf } from './proposals'
export type { ProposalView } from './proposals'
export { DECISIONS, DECLINE_REASONS, decideBatch, decideProposal, viewerCanDecide } from './decisions'
export type { BatchItemResult, BatchResult, Decision } from './decisions'
export { listReviewAuditReviews, produceReviewAuditReview, acceptReviewAuditReview } from './review-audit'
export { homeTwin, roleDecisions } from './workbench-decisions'
export { lintBeforeFiling, lintedText, lintsBeforeFiling, type ProposalLint, type UncitedAssertion } from './proposal-lint'
