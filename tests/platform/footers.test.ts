// The decision footer and the delegation line, in the specification's words, with every name in its own place: a
// footer that swapped the proposer and the decider would put a decision in someone else's name. Pure (no database).
import { describe, expect, it } from 'vitest'
import { decisionFooter, delegationLine } from '../../core/text'

describe('decision footers', () => {
  it('names the proposer, the role the twin worked as and the decider, each where the specification puts them', () => {
    expect(decisionFooter({ proposerName: 'Ada Author', workingAs: 'Medicinal chemist', decidedByName: 'Dee Decider' }))
      .toBe("Proposed by Ada Author's twin (agent, working as Medicinal chemist); decided by Dee Decider")
  })

  it('leaves out the working-as part when the run recorded neither a role nor a persona', () => {
    expect(decisionFooter({ proposerName: 'Ada Author', workingAs: null, decidedByName: 'Dee Decider' }))
      .toBe("Proposed by Ada Author's twin (agent); decided by Dee Decider")
    expect(decisionFooter({ proposerName: 'Ada Author', workingAs: '', decidedByName: 'Dee Decider' }))
      .toBe("Proposed by Ada Author's twin (agent); decided by Dee Decider")
  })

  it('adds the delegation line only under a delegation, with the principal first and the delegate second', () => {
    expect(delegationLine({ delegatedFromName: 'Pat Principal', decidedByName: 'Dee Delegate' }))
      .toBe('Routed under delegation from Pat Principal; decided by Dee Delegate in their own right.')
    expect(delegationLine({ delegatedFromName: null, decidedByName: 'Dee Delegate' })).toBeNull()
    expect(delegationLine({ decidedByName: 'Dee Delegate' })).toBeNull()
    expect(delegationLine(null)).toBeNull()
    expect(delegationLine(undefined)).toBeNull()
  })
})
