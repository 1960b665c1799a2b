// Owns how a person's free text is taken in: kept exactly as written (never trimmed, stripped of `<…>`, normalised or
// otherwise rewritten), or refused with invalid_input saying why (too long; blank where text is required). A
// scientist's `Conc <LLOQ at 24 h; AUC>100 & Cmax ≤ 2 µg/mL` is data. Agent-written text keeps its own rules
// (core/text/sanitiser.ts: hostile agent text refused whole); identifiers that are matched rather than read (document
// numbers, client ids, tags) are not person text.
import { z } from 'zod'

/** A person's text of at most `max` characters, stored as given; `required` is the message for blank text. */
export function personText(max: number, required?: string) {
  const text = z.string().max(max, `at most ${max.toLocaleString('en-GB')} characters`)
  return required ? text.refine((t) => t.trim().length > 0, required) : text
}
