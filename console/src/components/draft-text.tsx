// A twin's draft as people read it: its record citations ([@record:<id>], the program citation grammar inside a
// citation-key marker) become links to the record, its calendar dates read as dates; every other character is kept
// and shown as text (React escapes it). The draft itself is stored exactly as the twin wrote it.
import { Fragment } from 'react'
import { Link } from '../router'
import { withReadableDates } from '../format'

const CITATION = /\[@record:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\]/gi

export function DraftText({ text, slug }: { text: string; slug: string | null | undefined }) {
  const parts: React.ReactNode[] = []
  let last = 0
  let n = 0
  for (const m of text.matchAll(CITATION)) {
    parts.push(<Fragment key={`t${n}`}>{withReadableDates(text.slice(last, m.index))}</Fragment>)
    n++
    parts.push(slug
      ? <Link key={`c${n}`} href={`/p/${encodeURIComponent(slug)}/records/${encodeURIComponent(m[1])}`} className="citation">[the record]</Link>
      : <Fragment key={`c${n}`}>[a record]</Fragment>)
    last = m.index! + m[0].length
  }
  parts.push(<Fragment key="end">{withReadableDates(text.slice(last))}</Fragment>)
  return <p className="draft-text">{parts}</p>
}
