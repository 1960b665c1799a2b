// Owns the inbox concept: what waits for a person (inbox.ts: filing, listing, the person's operations, expiry), its
// live topic (inbox-events.ts), signed inbox links (link-tokens.ts, inbox-links.ts), backpressure (backpressure.ts),
// the persona brief and inbox summary (brief.ts) and the twin_digest pass (digest.ts). The contract other modules use.
export { sweepInbox, countMyOpenInboxByProgram, closeItemsForSource, DECIDED_KINDS, INBOX_KINDS, INBOX_STATUSES, changeShownBy, dismissInboxItem, getMyInboxItem, inboxFeedback, listMyInbox, resolveInboxItem, snoozeInboxItem } from './inbox'
export { fileInboxItem } from './filing'
export type { FileInboxItem } from './filing'
export { runDigests } from './digest'
export { admitFiling, isFilingPaused, openDecisionCounts, openDecisionCountsAcrossOrganisations, openDecisionCount, filingPaused, BACKPRESSURE_OPEN_DECISIONS } from './backpressure'
export { describeInboxLink, useInboxLink } from './inbox-links'
export { signInboxLink, LINK_TTL_SECONDS } from './link-tokens'
export { myBriefs, myInboxSummary } from './brief'
export type { Brief } from './brief'
export { InboxEvents } from './inbox-events'
export type { LiveInboxItem } from './inbox-events'
export { INBOX_PRODUCER_ACTIONS, onEventForInbox } from './inbox-producers'
export { batchingFor, nextDigestSlot } from './inbox-batches'
export { fileChainBreak, chainBreakTitle, CHAIN_BREAK_RECIPIENTS, CHAIN_BREAK_SOURCE } from './chain-breaks'
