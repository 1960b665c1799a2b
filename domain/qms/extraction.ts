// Owns requirement extraction from SOP version text (pure): numbered requirement rows, each anchored into the text by
// its section (the nearest numbered heading, or the requirement's own number) and the character range of its sentence.
// A requirement is a sentence with a normative verb (shall, must, is required to); headings and prose are not.

export interface ExtractedRequirement {
  number: number
  ref: string
  text: string
  section: string
  anchorStart: number
  anchorEnd: number
}

const NORMATIVE = /\b(shall|must|is required to|are required to)\b/i
const NUMBERED = /^(\d+(?:\.\d+)*)\.?\s+(.*)$/

export function extractRequirements(text: string): ExtractedRequirement[] {
  const out: ExtractedRequirement[] = []
  let section = '0'
  let offset = 0
  for (const rawLine of text.split('\n')) {
    const lineStart = offset
    offset += rawLine.length + 1
    const line = rawLine.trimEnd()
    if (!line.trim()) continue
    const lead = line.length - line.trimStart().length
    const numbered = NUMBERED.exec(line.trim())
    let body = line.trim()
    let bodyStart = lineStart + lead
    if (numbered) {
      section = numbered[1]
      body = numbered[2]
      bodyStart = lineStart + lead + line.trim().indexOf(numbered[2])
      if (!NORMATIVE.test(body)) continue
    }
    // Sentences of the line, each with its own range.
    const sentence = /[^.!?]+[.!?]?/g
    let m: RegExpExecArray | null
    while ((m = sentence.exec(body))) {
      const s = m[0]
      if (!NORMATIVE.test(s)) continue
      const trimmedLead = s.length - s.trimStart().length
      const t = s.trim()
      const start = bodyStart + m.index + trimmedLead
      out.push({ number: out.length + 1, ref: `R${out.length + 1}`, text: t, section, anchorStart: start, anchorEnd: start + t.length })
    }
  }
  return out
}
