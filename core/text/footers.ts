// The one place a decision footer is composed, shared by the twins subgraph (a decided proposal's footer) and the
// workbench subgraph (the footer of a record version applied from a twin's proposal), so the two always read alike.
// Both call decisionFooter with the parts they hold; the decision record's further line under delegation
// (delegationLine) is composed here too, not in either subgraph.
import { proposedBy, proposedByWorkingAs, routedUnderDelegation } from './copy'

/** The parts of a decision's footer. Extend here (a delegation line) rather than composing footers elsewhere. */
export interface DecisionFooterParts {
  proposerName: string
  /** The workbench role, or the persona name under a neutral persona harness; null when the run recorded neither. */
  workingAs: string | null
  decidedByName: string
}

/**
 * 'Proposed by <Name>'s twin (agent, working as <workbench role>); decided by <Name>' (memory and workbench roles
 * document), or without the working-as part when the run recorded no harness ('Proposed by <Name>'s twin (agent);
 * decided by <Name>', twins document).
 */
export function decisionFooter(p: DecisionFooterParts): string {
  return p.workingAs ? proposedByWorkingAs(p.proposerName, p.workingAs, p.decidedByName) : proposedBy(p.proposerName, p.decidedByName)
}

/** The decision record's line under delegation: 'Routed under delegation from <Name>; decided by <Name> in their own right.' */
export function delegationLine(a: { delegatedFromName?: string | null; decidedByName: string } | null | undefined): string | null {
  return a?.delegatedFromName ? routedUnderDelegation(a.delegatedFromName, a.decidedByName) : null
}
