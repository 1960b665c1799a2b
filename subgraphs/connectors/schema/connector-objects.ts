// What a connection has seen, in the connectors subgraph: ConnectorObject (connector_objects) and Connection.objects.
import { CONNECTORS } from '../../../core/text'
import type { Builder } from '../../shared/builder'
import { connectionType, pageArgs } from '../../shared/connection'
import { listConnectorObjects, type ConnectorObjectOut } from '../../../domain/connections'
import { targetRef } from '../../../domain/notebook'
import type { ConnectionRefs } from './connections'

export function addConnectorObjects(builder: Builder, { ConnectionRef }: ConnectionRefs) {
  const ObjectRef = builder.objectRef<ConnectorObjectOut>('ConnectorObject').implement({
    description: 'Mirror of what a connection has seen.',
    fields: (t) => ({
      id: t.exposeID('id'),
      sourceSystem: t.exposeString('providerId', { description: 'The provider the record comes from.' }),
      externalType: t.exposeString('externalType'),
      externalId: t.exposeString('externalId'),
      externalVersion: t.string({ nullable: true, resolve: (o) => o.externalVersion }),
      payloadHash: t.string({ nullable: true, resolve: (o) => o.payloadHash }),
      targetRef: t.string({ nullable: true, resolve: (o) => (o.externalType === 'entry' && o.payloadHash ? targetRef(o.externalId, o.payloadHash) : null) }),
      externalModifiedAt: t.field({ type: 'DateTime', nullable: true, resolve: (o) => o.externalModifiedAt }),
      firstSeenAt: t.field({ type: 'DateTime', resolve: (o) => o.firstSeenAt }),
      lastSeenAt: t.field({ type: 'DateTime', resolve: (o) => o.lastSeenAt }),
      deletedAt: t.field({ type: 'DateTime', nullable: true, resolve: (o) => o.deletedAt }),
      mappedType: t.string({ nullable: true, resolve: (o) => o.mappedType }),
      mappedId: t.string({ nullable: true, resolve: (o) => o.mappedId }),
      state: t.string({ nullable: true, description: 'The notebook review state, mirrored.', resolve: (o) => o.state }),
      stateNote: t.string({ nullable: true, description: "Where the state is decided: 'recorded in the notebook'.", resolve: (o) => (o.state ? CONNECTORS.recordedInTheNotebook : null) }),
    }),
  })
  const ObjectConnection = connectionType(builder, 'ConnectorObject', ObjectRef, 'A page of what a connection has seen, newest first by first sight.')

  builder.objectField(ConnectionRef, 'objects', (t) =>
    t.field({
      type: ObjectConnection,
      description: 'What the connection has seen, newest first by first sight; deleted records only with includeDeleted.',
      args: { externalType: t.arg.string({ required: false }), includeDeleted: t.arg.boolean({ required: false }), ...pageArgs(t.arg) },
      resolve: (c, args, ctx) => listConnectorObjects(ctx, c, args),
    }))
}
