// The rail of a program: the worn workbench role's products first, the rest under 'All records', Setup and
// Organization under 'More' when the person may change them (the API decides all three lists: Workbench.rail). Each
// entry opens its screen: the area's record lists (screens/record-list.tsx), Setup (screens/program-setup.tsx).
import { WORKBENCH } from '../copy'
import { Link } from '../router'

/** The screen each entry opens; an entry without one (Organization: administered outside a program) stays a label. */
const SCREEN: Record<string, string> = { evidence: 'evidence', plans: 'plans', progress: 'progress', review: 'review', setup: 'setup' }

const ENTRY: Record<string, string> = {
  evidence: 'Evidence', plans: 'Plans', progress: 'Progress', review: 'Review', setup: 'Setup', organization: 'Organization',
}

export function Rail({ slug, rail }: { slug: string; rail: { promoted?: string[] | null; allRecords?: string[] | null; more?: string[] | null } }) {
  const group = (label: string | null, keys: string[] | null | undefined, testId: string) =>
    keys?.length ? (
      <div className="rail-group" data-testid={testId}>
        {label ? <p className="label">{label}</p> : null}
        <ul className="rail-list">
          {keys.map((k) => (
            <li key={k}>{SCREEN[k] ? <Link href={`/p/${encodeURIComponent(slug)}/${SCREEN[k]}`}>{ENTRY[k] ?? k}</Link> : ENTRY[k] ?? k}</li>
          ))}
        </ul>
      </div>
    ) : null
  return (
    <nav className="rail" aria-label="Program areas">
      {group(null, rail.promoted, 'rail-promoted')}
      {group(WORKBENCH.allRecords, rail.allRecords, 'rail-all-records')}
      {group(WORKBENCH.more, rail.more, 'rail-more')}
    </nav>
  )
}
