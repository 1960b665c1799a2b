// The client package (clients/, @evidence-workspace/client) as a console team meets it: generated from today's
// supergraph and documents, packed with npm pack, installed from the tarball into an empty project, type-checked
// there and run against the gateway; and its possibleTypes make Apollo Client keep `... on Error` fields.
import { execFile } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client'
import { ROOT_DIR } from '../../core/config'
import { readSupergraph } from '../../gateway/supergraph'
import { CLIENT_PACKAGE_DIR, generateClientPackage, packageDocuments } from '../../clients/generate'
import { possibleTypes, RemoveProgramMemberDocument } from '../../clients/src/index'
import { useStack } from '../helpers/stack'
import { createTenant } from '../helpers/factories'

const run = promisify(execFile)
const stack = useStack()

describe('the client package', () => {
  it('holds what npm run schema makes of the supergraph, the console operations and the documentation examples today', async () => {
    const files = await generateClientPackage(await readSupergraph())
    for (const [file, content] of Object.entries(files)) {
      expect(await fs.readFile(path.join(CLIENT_PACKAGE_DIR, file), 'utf8'), `clients/${file} is stale: run npm run schema`).toBe(content)
    }
  })

  it('types every operation of the web console and every documentation example', async () => {
    const generated = await fs.readFile(path.join(CLIENT_PACKAGE_DIR, 'src/generated/graphql.ts'), 'utf8')
    const names = [...(await packageDocuments()).matchAll(/^(query|mutation|subscription) (\w+)/gm)].map((m) => m[2])
    expect(names.length).toBeGreaterThan(45)
    for (const name of names) expect(generated).toContain(`export const ${name}Document = `)
    for (const example of ['ExampleMe', 'ExampleRecordsPage', 'ExampleGateStream', 'ExampleDecideHypothesis']) expect(names).toContain(example)
  })

  it('installs from its packed tarball into an empty project, where an example type-checks and runs against the gateway', { timeout: 240_000 }, async () => {
    const work = await fs.mkdtemp(path.join(os.tmpdir(), 'client-package-'))
    try {
      // this checkout's tools first on PATH: npm pack's prepack runs its tsc however the tests were started
      const PATH = `${path.join(ROOT_DIR, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH ?? ''}`
      const npm = (args: string[], cwd: string) => run('npm', args, { cwd, env: { ...process.env, PATH, npm_config_update_notifier: 'false' }, maxBuffer: 16 * 1024 * 1024 })
      // npm pack builds (prepack: tsc) and packs exactly the published files
      const { stdout } = await npm(['pack', '--json', '--pack-destination', work], CLIENT_PACKAGE_DIR)
      const packed = JSON.parse(stdout)[0] as { filename: string; files: { path: string }[] }
      const packedFiles = packed.files.map((f) => f.path)
      expect(packedFiles).toEqual(expect.arrayContaining(['package.json', 'schema.graphql', 'codegen.ts', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/generated/possible-types.js']))
      expect(packedFiles.filter((f) => f.startsWith('src/') || f.includes('generate.ts') || f.startsWith('console/'))).toEqual([])

      const app = path.join(work, 'app')
      await fs.mkdir(app)
      await fs.writeFile(path.join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
      // the tarball has no dependencies of its own; its peers come from this checkout, linked (no network)
      await npm(['install', '--offline', '--no-audit', '--no-fund', '--legacy-peer-deps', '--ignore-scripts', path.join(work, packed.filename)], app)
      for (const peer of ['graphql', 'graphql-ws', '@graphql-typed-document-node/core', '@types/node', 'undici-types']) {
        const target = path.join(app, 'node_modules', peer)
        await fs.mkdir(path.dirname(target), { recursive: true })
        await fs.symlink(path.join(ROOT_DIR, 'node_modules', peer), target)
      }
      await fs.writeFile(path.join(app, 'tsconfig.json'), JSON.stringify({
        compilerOptions: { target: 'ES2023', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: ['node'], lib: ['ES2023', 'DOM'] },
        include: ['example.ts'],
      }))
      await fs.writeFile(path.join(app, 'example.ts'), `
import { createWorkspaceClient, ExampleMeDocument, possibleTypes, type ExampleMeQuery, type Schema } from '@evidence-workspace/client'

let tokenCalls = 0
const client = createWorkspaceClient({ url: process.env.GATEWAY_URL!, token: () => { tokenCalls++; return process.env.TOKEN! } })
const overHttp: ExampleMeQuery = await client.request(ExampleMeDocument)
// @ts-expect-error the example does not select a phone number
overHttp.me?.user?.phone
const overSocket = await new Promise<ExampleMeQuery>((resolve, reject) => {
  client.subscribe(ExampleMeDocument, {}, { onResult: (r) => r.data ? resolve(r.data) : reject(new Error(JSON.stringify(r.errors))), onError: reject })
})
await client.dispose()
const refusal: Schema.Error['code'] = 'last_owner'
console.log(JSON.stringify({ http: overHttp.me?.user?.id, socket: overSocket.me?.user?.email, tokenCalls, errorTypes: possibleTypes.Error.length, refusal }))
`)
      const tsc = path.join(ROOT_DIR, 'node_modules', '.bin', 'tsc')
      await run(tsc, ['-p', app], { cwd: app }).catch((e) => { throw new Error(`the example does not type-check:\n${e.stdout}${e.stderr}`) })
      // a wrong use is a type error in the consumer's project: the types are real, not any
      await fs.writeFile(path.join(app, 'wrong.ts'), `import { ExampleMeDocument, createWorkspaceClient } from '@evidence-workspace/client'\nconst c = createWorkspaceClient({ url: '', token: () => '' })\nconst d = await c.request(ExampleMeDocument)\nconst n: number = d.me?.user?.id\nexport { n }\n`)
      await fs.writeFile(path.join(app, 'tsconfig.wrong.json'), JSON.stringify({ extends: './tsconfig.json', include: ['wrong.ts'] }))
      const wrongCheck = await run(tsc, ['-p', path.join(app, 'tsconfig.wrong.json')], { cwd: app }).then(() => '', (e) => `${e.stdout}`)
      expect(wrongCheck).toMatch(/wrong\.ts.*Type 'string \| null \| undefined' is not assignable to type 'number'/)

      const t = await createTenant(stack.db.db)
      const { stdout: out } = await run(process.execPath, ['example.ts'], {
        cwd: app, env: { ...process.env, GATEWAY_URL: `${stack.current.gatewayUrl}/graphql`, TOKEN: await t.token('scientist'), NODE_NO_WARNINGS: '1' },
      })
      expect(JSON.parse(out.trim().split('\n').pop()!)).toEqual({
        http: t.users.scientist.id, socket: t.users.scientist.email, tokenCalls: 2, errorTypes: possibleTypes.Error.length, refusal: 'last_owner',
      })
    } finally {
      await fs.rm(work, { recursive: true, force: true })
    }
  })
})

describe("Apollo Client 4 with the package's possibleTypes", () => {
  it('keeps the fields of `... on Error { code message field }`, which it drops without them', async () => {
    const t = await createTenant(stack.db.db)
    const token = await t.token('program_owner')
    const clientWith = (cache: InMemoryCache) => new ApolloClient({
      cache, link: new HttpLink({ uri: `${stack.current.gatewayUrl}/graphql`, headers: { authorization: `Bearer ${token}` } }),
    })
    const variables = { programId: t.program.id, userId: t.users.program_owner.id }
    const without = await clientWith(new InMemoryCache()).mutate({ mutation: RemoveProgramMemberDocument, variables })
    expect(without.data?.removeProgramMember).toEqual({ __typename: 'LastOwner' }) // what teams met: code and message gone
    const withTypes = await clientWith(new InMemoryCache({ possibleTypes })).mutate({ mutation: RemoveProgramMemberDocument, variables })
    expect(withTypes.data?.removeProgramMember).toMatchObject({ __typename: 'LastOwner', code: 'last_owner', message: 'A program keeps at least one program owner.' })
  })
})
