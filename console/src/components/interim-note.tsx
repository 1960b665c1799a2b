// The specification's interim line for the site, docs and deck ('Every decision stays human and recorded. Timing
// claims wait for measured data.'): the foot of every console page, signed in or not.
import { FIXED_PHRASES } from '../copy'

export function InterimNote() {
  return (
    <footer className="interim-note" data-testid="interim-note">
      <p>{FIXED_PHRASES.everyDecisionHuman}</p>
    </footer>
  )
}
