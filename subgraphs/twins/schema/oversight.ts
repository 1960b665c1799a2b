// Owns Program.oversight: what the caller may see and do on the oversight screen (twin evaluations, the program board,
// decision metrics, QA summaries, twin configuration), each computed with can() on the permission the API already
// checks for that part (the console shows a part only when its flag is true; the queries still check).
import { can } from '../../../core/identity'
import type { Builder } from '../../shared/builder'
import type { TwinsRefs } from './refs'

interface Oversight { programId: string; twinsRead: boolean; twinsManage: boolean; auditRead: boolean }

export function addOversight(builder: Builder, { ProgramRef }: TwinsRefs) {
  const ProgramOversight = builder.objectRef<Oversight>('ProgramOversight').implement({
    description: 'What the caller may see and do on the oversight screen of a program, from the permissions each part checks.',
    fields: (t) => ({
      viewerCanReadTwins: t.boolean({
        description: 'program.twins.read: the program board, every twin with its evaluations and runs.',
        resolve: (o) => o.twinsRead,
      }),
      viewerCanManageTwins: t.boolean({
        description: "program.twins.manage: pausing someone's twin (with a reason) and the program's twin defaults (duties, budgets, expiry).",
        resolve: (o) => o.twinsManage,
      }),
      viewerCanReadAudit: t.boolean({
        description: 'program.audit.read: decision metrics per persona and the QA oversight summaries.',
        resolve: (o) => o.auditRead,
      }),
      viewerCanOversee: t.boolean({
        description: 'Any of the above: the console offers the oversight screen.',
        resolve: (o) => o.twinsRead || o.twinsManage || o.auditRead,
      }),
    }),
  })
  builder.objectField(ProgramRef, 'oversight', (t) => t.field({
    type: ProgramOversight,
    description: 'What the caller may see and do on the oversight screen of this program.',
    resolve: (p, _a, ctx) => ({
      programId: p.id,
      twinsRead: can(ctx.session, 'program.twins.read', p.id),
      twinsManage: can(ctx.session, 'program.twins.manage', p.id),
      auditRead: can(ctx.session, 'program.audit.read', p.id),
    }),
  }))
}
