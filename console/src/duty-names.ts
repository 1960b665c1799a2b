// The names people read for a twin's duties (the catalogue's keys are not words): the twin panel and oversight.
export const DUTY_NAMES: Readonly<Record<string, string>> = {
  blocker_scan: 'Blocker scan', pre_read: 'Pre-read', sar_refresh: 'SAR table refresh', study_gate_check: 'Study gate check',
  twin_literature_watch: 'Literature watch', twin_handoff: 'Hand-off pre-read', qa_check_triage: 'QA check triage',
  qa_deviation_followup: 'QA deviation follow-up', qa_oos_intake: 'QA OOS intake', qa_assertion_audit: 'QA assertion audit',
}

/** A duty's name; an unknown key as words, never as a key. */
export const dutyName = (key: string | null | undefined): string =>
  (key && DUTY_NAMES[key]) ?? (key ? key.replace(/[_.]+/g, ' ').replace(/^./, (c) => c.toUpperCase()) : 'A duty')
