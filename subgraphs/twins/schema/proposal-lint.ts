// The assertion lint of an evidence proposal on its card (Proposal.assertionLint): which assertions of the draft are
// interpretations without a citation (domain/proposal-lint.ts runs and stores it before every evidence.propose_*).
import type { Builder } from '../../shared/builder'
import type { ProposalLint, UncitedAssertion } from '../../../domain/proposals'

export function addProposalLint(builder: Builder) {
  const Uncited = builder.objectRef<UncitedAssertion>('UncitedAssertion').implement({
    description: 'A sentence of the draft the assertion lint tagged as an interpretation with no citation marker.',
    fields: (t) => ({
      index: t.exposeInt('index', { description: 'The sentence number, from 0, in the linted text.' }),
      kind: t.exposeString('kind', { description: 'The assertion kind (assertion_model).' }),
      text: t.exposeString('text'),
    }),
  })
  return builder.objectRef<ProposalLint>('ProposalAssertionLint').implement({
    description: 'evidence.assertion_lint, run before the proposal was filed: assertion kinds tagged, uncited interpretations flagged.',
    fields: (t) => ({
      passed: t.exposeBoolean('passed', { description: 'No interpretation without a citation.' }),
      sentenceCount: t.exposeInt('sentenceCount'),
      uncitedInterpretations: t.field({ type: [Uncited], resolve: (l) => l.uncited }),
      assertionModelVersion: t.exposeString('assertionModelVersion'),
      checkLogicVersion: t.exposeInt('checkLogicVersion'),
      skillResultArtifactId: t.exposeID('artifactId', { description: 'The skill_result artifact with every assertion tagged.' }),
    }),
  })
}
